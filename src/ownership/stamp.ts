// `tmux-fleet stamp`, the SessionStart hook of every agent (Claude Code, Codex
// CLI, Gemini CLI). It sets the stamp (@claude_session_id) and the agent
// process that holds it (@fleet-stamp-agent, told from the hook's own
// ancestry) on the session holding $TMUX_PANE, resolves that session's pending
// task at once (nonce proven), and keeps a Driver's task across /clear when
// the same process is proven (docs/ownership.md#the-stamp).
// It never prints and never fails the agent: problems go to <home>/log.
import type { Context } from '../context';
import { registryDir } from '../context';
import { errorMessage } from '../errors';
import { appendLog } from '../log';
import { collapseSpaces, procStartLstart, readProcStat } from '../proc';
import { rowsWithLiveness } from '../registry/liveness';
import { readRegistry } from '../registry/reader';
import type { RegistryRow } from '../registry/schema';
import { nudgeSupervisors } from '../nudge';
import { socketPathFromTmuxEnv } from '../tmux/client';
import { ownerSid, type Task } from '../tasks/schema';
import { isValidSlug } from '../tasks/slug';
import { listTasks, updateTask } from '../tasks/store';
import { Tmux } from '../tmux/client';
import { setStampAgent, stampSession, type StampRead } from '../tmux/session-marks';
import { formatAgentProcess, hookCaller, processRecord, type AgentProcess } from '../agents/agent-process';
import { isValidSid, showSid } from '../sid';

export interface HookInput {
  sid: string;
  source: string;
}

export interface StampOutcome {
  stamped: boolean;
  session?: string;
  /** The pending task this stamp resolved. */
  filled?: string;
  /** Tasks handed from the previous stamp to this one (same process, /clear). */
  handedOver: string[];
  /** The agent process recorded with the stamp, if one is known. */
  agent?: AgentProcess | null;
  problems: string[];
}

/** Parses the hook JSON (or takes --sid); throws with a message for the log. */
export function hookInput(sidFlag: unknown, stdinText: string): HookInput {
  if (sidFlag !== undefined) {
    if (!isValidSid(sidFlag)) throw new Error(`--sid ${showSid(String(sidFlag))} is not a session id`);
    return { sid: sidFlag, source: 'startup' };
  }
  if (stdinText.trim() === '') throw new Error('no hook JSON on stdin and no --sid');
  let raw: unknown;
  try {
    raw = JSON.parse(stdinText);
  } catch (err) {
    throw new Error(`hook JSON on stdin does not parse: ${errorMessage(err)}`);
  }
  const obj = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const sid = obj.session_id;
  if (typeof sid !== 'string' || !isValidSid(sid)) {
    throw new Error(`hook JSON session_id ${typeof sid === 'string' ? showSid(sid) : String(sid)} is not a session id`);
  }
  const source = typeof obj.source === 'string' && /^[a-z_-]{1,32}$/.test(obj.source) ? obj.source : 'startup';
  return { sid, source };
}

/** The live registry row of a session id, if any. */
export async function liveRowOf(rows: readonly RegistryRow[], sid: string): Promise<RegistryRow | undefined> {
  const mine = rows.filter((r) => r.sessionId === sid);
  if (mine.length === 0) return undefined;
  const live = await rowsWithLiveness(mine);
  return live.find((r) => r.liveness === 'live')?.row;
}

/** The same process as the task recorded: pid and procStart both equal (pids get reused). */
export function sameProcess(task: Pick<Task, 'driverPid' | 'driverProcStart'>, row: RegistryRow | undefined): boolean {
  if (!row || task.driverPid === undefined || !task.driverProcStart || !row.procStart) return false;
  return row.pid === task.driverPid && collapseSpaces(row.procStart) === collapseSpaces(task.driverProcStart);
}

/**
 * The task with the Driver's process: from its registry row (pid, procStart;
 * Claude Code's), else from the agent process the stamp recorded (pid, start
 * ticks, and its kind as driverAgent); neither clears them: a previous
 * Driver's process must not linger. Pure.
 */
export function withProcess(task: Task, row: RegistryRow | undefined, agent: AgentProcess | null = null): Task {
  const next: Task = { ...task };
  delete next.driverAgent;
  if (row) {
    next.driverPid = row.pid;
    if (row.procStart) next.driverProcStart = collapseSpaces(row.procStart);
    else delete next.driverProcStart;
    next.driverAgent = 'claude';
  } else if (agent) {
    next.driverPid = agent.pid;
    next.driverProcStart = agent.start;
    if (agent.kind !== 'other') next.driverAgent = agent.kind;
  } else {
    delete next.driverPid;
    delete next.driverProcStart;
  }
  return next;
}

/** Fills a pending task's driverSid when `read` proves the session is the spawned one. Pure. */
export function fillPending(
  task: Task | null,
  read: Pick<StampRead, 'session' | 'nonce'>,
  sid: string,
  row: RegistryRow | undefined,
  agent: AgentProcess | null = null,
): Task | null {
  if (!task || ownerSid(task) !== '') return null;
  if (!task.spawnNonce || read.nonce !== task.spawnNonce || task.driverPane !== read.session) return null;
  // The serializer drops spawnNonce once driverSid is set.
  const next = withProcess({ ...task, driverSid: sid }, row, agent);
  // A spawn --resume recorded its handover before the resumed session had stamped: it goes to this one.
  const last = next.handovers?.[next.handovers.length - 1];
  if (last && last.reason === 'resume' && last.to === '') next.handovers = [...next.handovers!.slice(0, -1), { ...last, to: sid }];
  return next;
}

/** The /clear handover, when the new id's row proves the same process as the recorded Driver. Pure. */
export function clearHandover(
  task: Task | null,
  previous: string,
  sid: string,
  row: RegistryRow | undefined,
  rowAlive: boolean,
  how: { source: string; session: string; at: string },
): Task | null {
  if (!task || previous === '' || previous === sid || ownerSid(task) !== previous) return null;
  if (!rowAlive || !sameProcess(task, row)) return null;
  return {
    ...task,
    driverSid: sid,
    priorDriverSid: previous,
    driverEpoch: (task.driverEpoch ?? 0) + 1,
    handovers: [...(task.handovers ?? []), { from: previous, to: sid, at: how.at, reason: how.source, pane: how.session }],
  };
}

/** The whole hook. Never throws; returns what it did (for tests and the log). */
export async function runStamp(ctx: Context, input: { sidFlag?: unknown; stdinText: string }): Promise<StampOutcome> {
  let hook: HookInput;
  try {
    hook = hookInput(input.sidFlag, input.stdinText);
  } catch (err) {
    appendLog(ctx.home, 'stamp', errorMessage(err));
    return { stamped: false, handedOver: [], problems: [errorMessage(err)] };
  }
  const pane = ctx.env.TMUX_PANE;
  if (!pane || !/^%\d+$/.test(pane)) {
    const msg = `outside tmux (no $TMUX_PANE): ${hook.sid} not stamped`;
    appendLog(ctx.home, 'stamp', msg);
    return { stamped: false, handedOver: [], problems: [msg] };
  }
  // The hook is a child of the agent: its own ancestry proves which process runs it.
  const caller = hookCaller();
  if (caller.found === 'codex-daemon') {
    const msg = `${hook.sid} not stamped: Codex's app-server daemon (pid ${caller.pid}) runs this hook, so $TMUX_PANE (${pane}) is the daemon's, not this thread's pane; run Codex without its daemon ([features] daemon_auto_start = false in config.toml, or codex --no-daemon)`;
    appendLog(ctx.home, 'stamp', msg);
    return { stamped: false, handedOver: [], problems: [msg] };
  }
  const agent = caller.found === 'agent' ? caller.agent : null;
  return stampPane(ctx, new Tmux(ctx.socket), pane, hook, { runByAgent: true, agent, ancestors: caller.found === 'none' ? caller.ancestors : [] });
}

/** The agent process is the task's recorded Driver: the same pid and start. */
function sameAgent(task: Task, agent: AgentProcess | null | undefined): boolean {
  return !!agent && task.driverPid === agent.pid && task.driverProcStart === agent.start;
}

/** The pid and start time of the recorded Driver is an ancestor of this process (the hook runs under the agent). */
function runByDriver(task: Task): boolean {
  if (task.driverPid === undefined || !task.driverProcStart) return false;
  const recorded = task.driverProcStart;
  let pid = process.ppid;
  for (let depth = 0; pid > 1 && depth < 32; depth++) {
    const stat = readProcStat(pid);
    if (stat === null) return false;
    if (pid === task.driverPid) return String(stat.startTicks) === recorded || procStartLstart(pid) === collapseSpaces(recorded);
    pid = stat.ppid;
  }
  return false;
}

/**
 * Stamps the session holding `pane` with `hook.sid` and does what a stamp
 * does: resolves that session's pending task (nonce proven) and hands a
 * Driver's tasks over across /clear when the same process is proven (its
 * registry row, or for the hook its own ancestry). One code path for the
 * SessionStart hook and for the supervisor's stamp by ancestry
 * (docs/ownership.md#the-stamp). Never throws.
 */
export async function stampPane(
  ctx: Context,
  tmux: Tmux,
  pane: string,
  hook: HookInput,
  how: {
    runByAgent: boolean;
    nudge?: boolean;
    /** The agent process that holds the id (the hook's caller, or the one the supervisor proved). */
    agent?: AgentProcess | null;
    /** No agent known: the stamp's own ancestors; when the pane's process is one, it is the one recorded. */
    ancestors?: readonly number[];
  },
): Promise<StampOutcome> {
  const out: StampOutcome = { stamped: false, handedOver: [], problems: [] };
  const problem = (msg: string) => {
    out.problems.push(msg);
    appendLog(ctx.home, 'stamp', msg);
  };
  try {
    let read: StampRead;
    let agent = how.agent ?? null;
    try {
      read = await stampSession(tmux, pane, hook.sid, agent ? formatAgentProcess(agent) : null);
      // No known agent: the process the pane runs, when this stamp runs under it (a shell, an agent's wrapper).
      if (!agent && read.panePid > 1 && how.ancestors?.includes(read.panePid)) {
        agent = processRecord('other', read.panePid);
        if (agent) await setStampAgent(tmux, pane, formatAgentProcess(agent));
      }
    } catch (err) {
      problem(`cannot stamp the session of pane ${pane} with ${hook.sid}: ${errorMessage(err)}`);
      return out;
    }
    out.stamped = true;
    out.session = read.session;
    out.agent = agent;

    const pendingSlug = isValidSlug(read.task) ? read.task : null;
    const clearing = read.previous !== '' && read.previous !== hook.sid;
    if (pendingSlug || clearing) {
      const registry = await readRegistry(registryDir(ctx.env));
      const rows = registry.entries.map((e) => e.row);
      const row = await liveRowOf(rows, hook.sid);

      if (pendingSlug) {
        try {
          let filled = false;
          await updateTask(ctx.home, pendingSlug, (cur) => {
            const next = fillPending(cur, read, hook.sid, row, agent);
            filled = next !== null;
            return next;
          });
          if (filled) out.filled = pendingSlug;
        } catch (err) {
          problem(`task ${pendingSlug}: ${errorMessage(err)}`);
        }
      }

      if (clearing) {
        const slugs = new Set<string>();
        if (pendingSlug && out.filled !== pendingSlug) slugs.add(pendingSlug);
        for (const e of await listTasks(ctx.home)) if (e.task && ownerSid(e.task) === read.previous) slugs.add(e.slug);
        for (const slug of slugs) {
          try {
            let handed = false;
            let owned = false;
            await updateTask(ctx.home, slug, (cur) => {
              owned = cur !== null && ownerSid(cur) === read.previous;
              // The proof: the new id's live row is the recorded process, or the agent that holds it is, or the hook runs under it.
              const proof =
                row ?? (cur && (sameAgent(cur, agent) || (how.runByAgent && runByDriver(cur))) ? processRowOf(cur, hook.sid) : undefined);
              const next = clearHandover(cur, read.previous, hook.sid, proof, proof !== undefined, {
                source: hook.source,
                session: read.session,
                at: new Date().toISOString(),
              });
              handed = next !== null;
              return next;
            });
            if (handed) out.handedOver.push(slug);
            else if (owned) {
              problem(
                `task ${slug}: ${hook.sid} replaced ${read.previous} in ${read.session} (${hook.source}) but neither the registry nor the process tree proves the same process; not handed over (tmux-fleet takeover ${slug} does it on purpose)`,
              );
            }
          } catch (err) {
            problem(`task ${slug}: ${errorMessage(err)}`);
          }
        }
      }
    }
    if (how.nudge !== false) nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  } catch (err) {
    problem(`unexpected: ${errorMessage(err)}`);
  }
  return out;
}

/** The recorded Driver's process as a row of `sid` (the proof when the hook runs under it and its row is not rewritten yet). */
function processRowOf(task: Task, sid: string): RegistryRow {
  return { pid: task.driverPid as number, sessionId: sid, procStart: task.driverProcStart };
}
