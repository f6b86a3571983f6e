// `tmux-fleet stamp`, Claude Code's SessionStart hook. It sets the stamp
// (@claude_session_id) on the session holding $TMUX_PANE, resolves that
// session's pending task at once (nonce proven), and keeps a Driver's task
// across /clear when the registry proves it is the same process (issue 6).
// It never prints and never fails the agent: problems go to <home>/log.
import type { Context } from '../context';
import { registryDir } from '../context';
import { errorMessage } from '../errors';
import { appendLog } from '../log';
import { collapseSpaces } from '../proc';
import { rowsWithLiveness } from '../registry/liveness';
import { readRegistry } from '../registry/reader';
import type { RegistryRow } from '../registry/schema';
import { nudgeSupervisors, socketPathFromTmuxEnv } from '../nudge';
import { ownerSid, type Task } from '../tasks/schema';
import { isValidSlug } from '../tasks/slug';
import { listTasks, updateTask } from '../tasks/store';
import { Tmux } from '../tmux/client';
import { stampSession, type StampRead } from '../tmux/session-marks';
import { isValidSid, showSid } from './sid';

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

/** The task with the Driver's process from its registry row (pid, procStart); none clears them: a previous Driver's pid must not linger. Pure. */
export function withProcess(task: Task, row: RegistryRow | undefined): Task {
  const next: Task = { ...task };
  if (row) {
    next.driverPid = row.pid;
    if (row.procStart) next.driverProcStart = collapseSpaces(row.procStart);
    else delete next.driverProcStart;
  } else {
    delete next.driverPid;
    delete next.driverProcStart;
  }
  return next;
}

/** Fills a pending task's driverSid when `read` proves the session is the spawned one. Pure. */
export function fillPending(task: Task | null, read: Pick<StampRead, 'session' | 'nonce'>, sid: string, row: RegistryRow | undefined): Task | null {
  if (!task || ownerSid(task) !== '') return null;
  if (!task.spawnNonce || read.nonce !== task.spawnNonce || task.driverPane !== read.session) return null;
  // The serializer drops spawnNonce once driverSid is set.
  return withProcess({ ...task, driverSid: sid }, row);
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
  const out: StampOutcome = { stamped: false, handedOver: [], problems: [] };
  const problem = (msg: string) => {
    out.problems.push(msg);
    appendLog(ctx.home, 'stamp', msg);
  };
  try {
    let hook: HookInput;
    try {
      hook = hookInput(input.sidFlag, input.stdinText);
    } catch (err) {
      problem(errorMessage(err));
      return out;
    }
    const pane = ctx.env.TMUX_PANE;
    if (!pane || !/^%\d+$/.test(pane)) {
      problem(`outside tmux (no $TMUX_PANE): ${hook.sid} not stamped`);
      return out;
    }
    const tmux = new Tmux(ctx.socket);
    let read: StampRead;
    try {
      read = await stampSession(tmux, pane, hook.sid);
    } catch (err) {
      problem(`cannot stamp the session of pane ${pane} with ${hook.sid}: ${errorMessage(err)}`);
      return out;
    }
    out.stamped = true;
    out.session = read.session;

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
            const next = fillPending(cur, read, hook.sid, row);
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
              const next = clearHandover(cur, read.previous, hook.sid, row, row !== undefined, {
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
                `task ${slug}: ${hook.sid} replaced ${read.previous} in ${read.session} (${hook.source}) but the registry does not prove the same process; not handed over (tmux-fleet takeover ${slug} does it on purpose)`,
              );
            }
          } catch (err) {
            problem(`task ${slug}: ${errorMessage(err)}`);
          }
        }
      }
    }
    nudgeSupervisors(ctx.home, socketPathFromTmuxEnv(ctx.env));
  } catch (err) {
    problem(`unexpected: ${errorMessage(err)}`);
  }
  return out;
}
