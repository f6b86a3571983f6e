// The agent process a stamp records (docs/ownership.md#the-stamps-process):
// its kind, pid and start time, kept on the stamped session as
// @fleet-stamp-agent (`<kind> <pid> <start ticks>`) and in the task the stamp
// resolves (driverAgent, driverPid, driverProcStart). A stamped Driver is live
// while that very process runs, never merely while its session keeps the stamp.
import { readProcStat } from '../proc';
import { identifyAgent, isAgentKind, lookAt, type AgentKind } from './kind';

/** `other`: no known agent; the process the stamp's pane runs (the pane's first process). */
export type RecordedKind = AgentKind | 'other';

export interface AgentProcess {
  kind: RecordedKind;
  pid: number;
  /** /proc/<pid>/stat field 22 (clock ticks after boot), as decimal text. */
  start: string;
}

/** The session option value (`codex 19467 35906`). */
export function formatAgentProcess(p: AgentProcess): string {
  return `${p.kind} ${p.pid} ${p.start}`;
}

/** The option value read back; null for anything else (a value a user typed, an older helper's). */
export function parseAgentProcess(text: string): AgentProcess | null {
  const m = /^(claude|codex|gemini|other) ([1-9]\d{0,9}) (\d{1,20})$/.exec(text.trim());
  if (!m) return null;
  return { kind: m[1] as RecordedKind, pid: Number(m[2]), start: m[3] as string };
}

export function isRecordedKind(v: unknown): v is RecordedKind {
  return v === 'other' || isAgentKind(v);
}

/** The process now running as pid, as a record (null when it is gone or /proc cannot tell). */
export function processRecord(kind: RecordedKind, pid: number): AgentProcess | null {
  const stat = readProcStat(pid);
  return stat === null ? null : { kind, pid, start: String(stat.startTicks) };
}

/** What the hook's ancestry shows: the nearest agent above it, or nothing. */
export type HookCaller =
  | { found: 'agent'; agent: AgentProcess }
  /** Codex's app-server daemon runs the hook: the pane it names is the daemon's, not the thread's. */
  | { found: 'codex-daemon'; pid: number }
  | { found: 'none'; ancestors: number[] };

/** The most parents walked from the hook up (a shell, a wrapper, npx ...). */
const MAX_DEPTH = 32;

/**
 * The agent that runs this hook: the nearest ancestor (from `from`, the
 * hook's parent) that is an agent process. Reads /proc only.
 */
export function hookCaller(from: number = process.ppid): HookCaller {
  const ancestors: number[] = [];
  let pid = from;
  for (let depth = 0; pid > 1 && depth < MAX_DEPTH; depth++) {
    const stat = readProcStat(pid);
    if (stat === null) break;
    const id = identifyAgent(lookAt(pid));
    if (id?.daemon) return { found: 'codex-daemon', pid };
    if (id) return { found: 'agent', agent: { kind: id.kind, pid, start: String(stat.startTicks) } };
    ancestors.push(pid);
    pid = stat.ppid;
  }
  return { found: 'none', ancestors };
}

/** Whether the recorded process still runs (pid and start ticks; a zombie is gone), from /proc now. */
export function agentProcessLiveness(p: Pick<AgentProcess, 'pid' | 'start'>, stat: (pid: number) => { state: string; startTicks: number } | null = readProcStat): 'live' | 'gone' {
  const s = stat(p.pid);
  if (s === null || s.state === 'Z' || s.state === 'X') return 'gone';
  return String(s.startTicks) === p.start ? 'live' : 'gone';
}
