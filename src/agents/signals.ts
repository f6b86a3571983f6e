// What an agent's own hooks said last (docs/ownership.md#what-each-agent-tells):
// `tmux-fleet event` turns a hook's JSON into a signal (busy, idle, waiting and
// what for) and keeps the last one per session id in <home>/signals/<sid>.json;
// the supervisor watches that directory. A signal is a claim of the hook's
// caller: the view uses it only where the pane it names belongs to a session
// stamped with its session id (src/agents/state.ts).
import { readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dirTrustProblem, makePrivateDirs, signalsDir } from '../context';
import { readRegularFile, UnsafeFileError } from '../fs-safe';
import { isValidSid } from '../sid';
import { printable } from '../text';
import * as z from '../zod';
import type { AgentKind } from './kind';

export type SignalState = 'busy' | 'idle' | 'waiting';

export interface AgentSignal {
  agent: AgentKind;
  sessionId: string;
  /** The tmux pane the hook ran in ($TMUX_PANE), or null. */
  pane: string | null;
  /** The hook's event name, as the agent named it. */
  event: string;
  state: SignalState;
  /** What it waits for, in the agent's words (`approve Bash: ls -la /`); null when nothing. */
  needs: string | null;
  /** When the hook ran (epoch ms). */
  at: number;
}

/** A hook's sentence is shown in a status line: one line, at most this long. */
export const MAX_NEEDS = 200;
/** A signal file is a few hundred bytes; anything near this is not one. */
const MAX_SIGNAL_BYTES = 4096;
const PANE_RE = /^%\d{1,9}$/;


type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A text for the status line: control characters and line breaks as spaces, runs of space as one, cut. */
export function oneLineText(s: string, max = MAX_NEEDS): string {
  const flat = printable(s.replace(/[\r\n\t\u2028\u2029]+/g, ' ')).replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** What a tool call asks, as Claude Code words a job's need: `approve Bash: ls -la /`. */
function approveText(tool: string, input: Json): string {
  const detail = str(input.command) || str(input.file_path) || str(input.path) || str(input.url) || str(input.pattern) || str(input.query);
  const name = oneLineText(tool, 40) || 'a tool';
  return oneLineText(detail ? `approve ${name}: ${detail}` : `approve ${name}`);
}

/** Gemini CLI's Notification `details` of a tool permission: `approve Shell: ls -la /`, else its own message. */
function geminiApproveText(hook: Json): string {
  const details = obj(hook.details);
  const command = str(details.command);
  if (command) return oneLineText(`approve Shell: ${command}`);
  const file = str(details.fileName) || str(details.filePath);
  if (file) return oneLineText(`approve ${str(details.title) || 'Edit'}: ${file}`);
  return oneLineText(str(hook.message) || 'approve a tool');
}

/**
 * The state a hook event says, per agent (measured with Claude Code 2.1.197 and
 * 2.1.333, Codex CLI 0.171.0, Gemini CLI 0.61.0; docs/ownership.md#what-each-agent-tells),
 * or 'end' (the session ends: its signal goes), or null (an event that says
 * nothing of the state). Pure.
 */
export function stateOfEvent(agent: AgentKind, hook: Json): { state: SignalState; needs: string | null } | 'end' | null {
  const event = str(hook.hook_event_name);
  if (event === 'SessionEnd') return 'end';
  switch (agent) {
    case 'claude':
      // Busy, idle and waiting come from its registry row; the hook adds what a wait is for.
      if (event === 'PermissionRequest') return { state: 'waiting', needs: approveText(str(hook.tool_name), obj(hook.tool_input)) };
      return null;
    case 'codex':
      if (event === 'UserPromptSubmit' || event === 'PreToolUse' || event === 'PostToolUse') return { state: 'busy', needs: null };
      if (event === 'PermissionRequest') return { state: 'waiting', needs: approveText(str(hook.tool_name) || 'Bash', obj(hook.tool_input)) };
      // Interrupt: Esc, which also denies an approval (no other hook fires then).
      if (event === 'Stop' || event === 'Interrupt') return { state: 'idle', needs: null };
      return null;
    case 'gemini':
      if (event === 'BeforeAgent' || event === 'AfterTool') return { state: 'busy', needs: null };
      if (event === 'Notification' && str(hook.notification_type) === 'ToolPermission') return { state: 'waiting', needs: geminiApproveText(hook) };
      if (event === 'AfterAgent') return { state: 'idle', needs: null };
      return null;
  }
}

/** The hook events each agent's `event` hook is installed for (hooks install; docs/ownership.md#what-each-agent-tells). */
export const SIGNAL_EVENTS: Record<AgentKind, readonly string[]> = {
  claude: ['PermissionRequest', 'SessionEnd'],
  codex: ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'Interrupt', 'SessionEnd'],
  gemini: ['BeforeAgent', 'Notification', 'AfterTool', 'AfterAgent', 'SessionEnd'],
};

/** Why a hook's input makes no signal (for the log), or the signal / the end of one. Pure but for `now`. */
export function signalOfHook(
  agent: AgentKind,
  stdinText: string,
  pane: string | undefined,
  now: number = Date.now(),
): { signal: AgentSignal } | { end: string } | { skip: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(stdinText);
  } catch {
    return { skip: 'the hook JSON on stdin does not parse' };
  }
  const hook = obj(raw);
  const sid = hook.session_id;
  if (typeof sid !== 'string' || !isValidSid(sid)) return { skip: 'the hook JSON has no valid session_id' };
  const said = stateOfEvent(agent, hook);
  if (said === 'end') return { end: sid };
  if (said === null) return { skip: `event ${oneLineText(str(hook.hook_event_name), 40) || '(none)'} says nothing of the state` };
  return {
    signal: {
      agent,
      sessionId: sid,
      pane: pane && PANE_RE.test(pane) ? pane : null,
      event: oneLineText(str(hook.hook_event_name), 40),
      state: said.state,
      needs: said.needs,
      at: now,
    },
  };
}

const SignalSchema = z.object({
  agent: z.enum(['claude', 'codex', 'gemini']),
  sessionId: z.string(),
  pane: z.nullable(z.string()),
  event: z.string(),
  state: z.enum(['busy', 'idle', 'waiting']),
  needs: z.nullable(z.string()),
  at: z.number(),
});

/** A signal file's text, or null when it is not one. */
export function parseSignal(text: string): AgentSignal | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = SignalSchema.safeParse(json);
  if (!parsed.success) return null;
  const s = parsed.data;
  if (!isValidSid(s.sessionId) || (s.pane !== null && !PANE_RE.test(s.pane)) || !Number.isFinite(s.at)) return null;
  return {
    agent: s.agent,
    sessionId: s.sessionId,
    pane: s.pane,
    event: oneLineText(s.event, 40),
    state: s.state,
    needs: s.needs === null ? null : oneLineText(s.needs),
    at: s.at,
  };
}

const fileOf = (home: string, sid: string) => join(signalsDir(home), `${sid}.json`);

/**
 * Keeps the signal as its session's last (a temp file renamed over: a reader
 * sees the old or the new one). No fsync: a signal lost in a crash is
 * replaced by the agent's next event.
 */
export function writeSignal(home: string, signal: AgentSignal): void {
  const dir = signalsDir(home);
  const file = fileOf(home, signal.sessionId);
  const tmp = join(dir, `.${signal.sessionId}.${process.pid}.tmp`);
  // The home's directories made where missing, and refused when someone else could write there.
  makePrivateDirs(home);
  writeFileSync(tmp, `${JSON.stringify(signal)}\n`, { mode: 0o600, flag: 'w' });
  renameSync(tmp, file);
}

/** The session ended: its signal goes. */
export function removeSignal(home: string, sid: string): void {
  try {
    unlinkSync(fileOf(home, sid));
  } catch {
    /* none */
  }
}

/** Signal files at most (one per live agent session; a directory holding more is not a signals directory). */
const MAX_SIGNALS = 2000;

/**
 * The signals of `sids` (null: every file), by session id, read through the
 * one safe reader; a directory others can write to is not read (a forged
 * wait). `cache` keeps what an unchanged file said (by mtime and size).
 */
export function readSignals(home: string, sids: Iterable<string> | null = null, cache?: Map<string, AgentSignal>): Map<string, AgentSignal> {
  const dir = signalsDir(home);
  const out = new Map<string, AgentSignal>();
  if (dirTrustProblem(dir) !== null) return out;
  let names: string[];
  if (sids === null) {
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json')).slice(0, MAX_SIGNALS);
    } catch {
      return out;
    }
  } else names = [...sids].filter(isValidSid).map((sid) => `${sid}.json`);
  for (const name of names) {
    const sid = name.slice(0, -'.json'.length);
    if (!isValidSid(sid)) continue;
    let signal: AgentSignal | null = null;
    try {
      signal = parseSignal(readRegularFile(join(dir, name), MAX_SIGNAL_BYTES));
    } catch (err) {
      if (!(err instanceof UnsafeFileError) && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (signal && signal.sessionId === sid) {
      out.set(sid, signal);
      cache?.set(sid, signal);
    } else cache?.delete(sid);
  }
  return out;
}

/**
 * The whole `event` hook: the hook JSON turned into its session's last signal
 * (or the signal removed when the session ends). Never throws: a problem is a
 * line in the log, and the agent is never held up (no tmux call, no lock).
 */
export function recordHookEvent(home: string, agent: AgentKind, stdinText: string, pane: string | undefined, log: (message: string) => void): AgentSignal | null {
  const got = signalOfHook(agent, stdinText, pane);
  try {
    if ('skip' in got) {
      // An event that says nothing of the state is no problem; input that is not a hook's is.
      if (!got.skip.startsWith('event ')) log(`${agent}: ${got.skip}; nothing recorded`);
      return null;
    }
    if ('end' in got) {
      removeSignal(home, got.end);
      return null;
    }
    // Outside tmux (a background job's hook): nothing to show it on, and nothing to log either.
    if (got.signal.pane === null) return null;
    writeSignal(home, got.signal);
    return got.signal;
  } catch (err) {
    log(`${agent}: cannot record the hook's event: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}
