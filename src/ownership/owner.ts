// The judge's I/O wrapper: read the task, name the asker, make the one tmux
// read a pending task needs, compute the one liveness the decision needs, and
// hand everything to the pure decide().
import { registryDir, type Context } from '../context';
import { TaskFileError, UsageError } from '../errors';
import type { Liveness, LiveRow } from '../registry/liveness';
import type { RegistrySnapshot } from '../registry/reader';
import type { StampFacts } from '../registry/sid-liveness';
import { noSuchTask, readTask } from '../tasks/store';
import { assertSlug } from '../tasks/slug';
import { ownerSid, type Handover, type Task } from '../tasks/schema';
import { Tmux, tmuxEnvSession, type TmuxReads } from '../tmux/client';
import { readAllMarks, readAsker, readPaneAndAsker, readSessionStampById, readStamps, type AskerRead, type MarksRead, type PaneRead, type StampsRead } from '../tmux/session-marks';
import { decide, lastHandover, livenessNeeded, paneToRead, pickCarrier, type Decision } from './judge';
import { isValidSid } from '../sid';

export type AskerFrom = 'as' | 'env' | 'pane' | 'none';

export interface Asker {
  sid: string;
  from: AskerFrom;
  /** The tmux session holding $TMUX_PANE, when it was read. */
  session?: string;
}

/**
 * The asker without tmux, when it can be named so: --as, else $CLAUDE_CODE_SESSION_ID.
 * Returns null when the stamp of $TMUX_PANE's session must be read; an Asker with
 * sid "" when nobody can be named. A bad --as is a usage error.
 */
export function askerWithoutTmux(as: unknown, env: NodeJS.ProcessEnv): Asker | null {
  if (as !== undefined) {
    if (!isValidSid(as)) throw new UsageError(`--as: ${JSON.stringify(String(as))} is not a session id`);
    return { sid: as, from: 'as' };
  }
  const fromEnv = env.CLAUDE_CODE_SESSION_ID;
  if (fromEnv) return isValidSid(fromEnv) ? { sid: fromEnv, from: 'env' } : { sid: '', from: 'none' };
  if (env.TMUX_PANE) return null;
  return { sid: '', from: 'none' };
}

function askerFromRead(read: AskerRead | null | undefined): Asker {
  if (!read || !read.found || !isValidSid(read.stamp)) return { sid: '', from: 'none', session: read?.found ? read.session : undefined };
  return { sid: read.stamp, from: 'pane', session: read.session };
}

/** Names the asker, reading $TMUX_PANE's session when needed (one tmux call). */
export async function resolveAsker(tmux: TmuxReads, as: unknown, env: NodeJS.ProcessEnv): Promise<Asker> {
  const known = askerWithoutTmux(as, env);
  if (known) return known;
  return askerFromRead(await readAsker(tmux, env.TMUX_PANE as string));
}

/**
 * Who reads a verdict (docs/ownership.md#output), for `tasks` and the
 * dashboard: named as an asker is ($CLAUDE_CODE_SESSION_ID, else the stamp
 * of $TMUX_PANE's session), else, in a popup (no pane), the stamp of the
 * session $TMUX names. '' when nobody can be named: then nobody is "you".
 */
export async function resolveViewer(tmux: TmuxReads, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.CLAUDE_CODE_SESSION_ID || env.TMUX_PANE) return (await resolveAsker(tmux, undefined, env)).sid;
  const target = tmuxEnvSession(env);
  if (target === null) return '';
  const stamp = await readSessionStampById(tmux, target);
  return stamp !== null && isValidSid(stamp) ? stamp : '';
}

export interface Judgement {
  slug: string;
  decision: Decision;
  asker: Asker;
  task: Task | null;
  taskError?: TaskFileError;
  paneRead?: PaneRead;
}

/**
 * Liveness of one session id: the registry, else whether a tmux session carries
 * it as its stamp. `stamps`: every session's stamp, read once by the caller.
 */
export async function livenessOf(env: NodeJS.ProcessEnv, sid: string, stamps: StampsRead | null, task?: Task | null, registry?: () => Promise<JudgedRegistry>): Promise<Liveness> {
  // Imported here: most verdicts (the asker is the owner) need no liveness, and the registry's schema costs start-up time.
  const [{ readRegistry }, { sessionLiveness }] = await Promise.all([import('../registry/reader'), import('../registry/sid-liveness')]);
  const shared = registry ? await registry() : null;
  const snapshot = shared ? shared.snapshot : await readRegistry(registryDir(env));
  const recorded =
    task && (task.driverPid !== undefined || task.driverJobId)
      ? { sid: ownerSid(task), pid: task.driverPid, procStart: task.driverProcStart, jobId: task.driverJobId }
      : undefined;
  return sessionLiveness(sid, snapshot, () => stampFacts(stamps, sid), recorded, shared?.rows);
}

/** What the server's sessions say of a session id: carried as a stamp, and the liveness of the processes recorded with it. */
async function stampFacts(stamps: StampsRead | null, sid: string): Promise<StampFacts | null> {
  if (stamps === null) return null;
  const [{ parseAgentProcess }, { processesLiveness, mostAlive }] = await Promise.all([import('../agents/agent-process'), import('../registry/liveness')]);
  const procs = (stamps.get(sid)?.agents ?? []).map(parseAgentProcess).filter((p) => p !== null);
  return { carried: stamps.has(sid), processes: mostAlive(await processesLiveness(procs)) };
}

/**
 * The reads that the judgements of one pass over many tasks share (restore
 * looks at every task): every session's marks and the registry, each made
 * once, on first use. Without them each judgement reads both itself: at 500
 * tasks and 2000 rows a restore's dry run opened 280 000 files and started
 * 430 tmux clients (docs/ownership.md#restore).
 */
export interface SharedReads {
  marks(): Promise<MarksRead | null>;
  registry(): Promise<JudgedRegistry>;
}

/** The registry as read, and its rows with their processes' liveness (one look at /proc). */
export interface JudgedRegistry {
  snapshot: RegistrySnapshot;
  rows: LiveRow[];
}

export function sharedReads(tmux: TmuxReads, env: NodeJS.ProcessEnv): SharedReads {
  let marks: Promise<MarksRead | null> | null = null;
  let registry: Promise<JudgedRegistry> | null = null;
  const judged = async (): Promise<JudgedRegistry> => {
    const [{ readRegistry }, { liveRows }] = await Promise.all([import('../registry/reader'), import('../registry/liveness')]);
    const snapshot = await readRegistry(registryDir(env));
    return { snapshot, rows: snapshot.readable ? await liveRows(snapshot) : [] };
  };
  return {
    marks: () => (marks ??= readAllMarks(tmux)),
    registry: () => (registry ??= judged()),
  };
}

/**
 * Judges a task already read (takeover calls this under the task's lock).
 * `asker` is either resolved already or null (then $TMUX_PANE is read, chained
 * into the pane read when there is one). `shared`: reads made once for a pass
 * over many tasks (with a known asker), in place of this judgement's own.
 */
export async function judgeLoaded(
  ctx: Context,
  tmux: TmuxReads,
  slug: string,
  loaded: { task: Task | null; taskError?: TaskFileError },
  askerKnown: Asker | null,
  shared?: SharedReads,
): Promise<Judgement> {
  const { task, taskError } = loaded;
  let asker = askerKnown;
  let paneRead: PaneRead | undefined;
  const pane = taskError ? null : paneToRead(task);
  if (pane !== null && shared && asker) {
    const marks = await shared.marks();
    paneRead = marks === null ? { tmuxError: 'cannot list the tmux sessions' } : (marks.sessions.get(pane) ?? { nonce: '', stamp: '' });
  } else if (pane !== null) {
    const r = await readPaneAndAsker(tmux, pane, asker ? undefined : (ctx.env.TMUX_PANE as string));
    paneRead = r.pane;
    asker ??= askerFromRead(r.asker);
  } else if (!asker) {
    asker = task && !taskError ? askerFromRead(await readAsker(tmux, ctx.env.TMUX_PANE as string)) : { sid: '', from: 'none' };
  }
  const who: Asker = asker ?? { sid: '', from: 'none' };
  const base = { slug, task, taskError: taskError?.message, asker: who.sid, paneRead };
  const need = livenessNeeded(base);
  // A 9: one read of every session's stamp, to name the session the owner runs in (and for its liveness).
  const stamps = need === null ? null : shared ? ((await shared.marks())?.stamps ?? null) : await readStamps(tmux);
  const liveness: Liveness | null = need === null ? null : await livenessOf(ctx.env, need, stamps, task, shared?.registry);
  const decision = decide({ ...base, liveness: () => liveness ?? 'unknown', sessionOf: (sid) => pickCarrier(stamps?.get(sid)?.sessions ?? [], task?.driverPane) });
  return { slug, decision, asker: who, task, taskError, paneRead };
}

/** Reads a task for judging: a corrupt file becomes taskError, never an exception. */
export async function loadForJudge(home: string, slug: string): Promise<{ task: Task | null; taskError?: TaskFileError }> {
  try {
    return { task: await readTask(home, slug) };
  } catch (err) {
    if (err instanceof TaskFileError) return { task: null, taskError: err };
    throw err;
  }
}

/** `owner <slug> [--as <sid>]`: the whole judge. A bad slug or --as is a UsageError (exit 2), an unknown slug exit 1. */
export async function judgeTask(ctx: Context, slug: unknown, as?: unknown): Promise<Judgement> {
  const s = assertSlug(slug);
  const askerKnown = askerWithoutTmux(as, ctx.env);
  const loaded = await loadForJudge(ctx.home, s);
  // No such task: a failure (exit 1), not a 5, which a caller waits out as "still booting".
  if (!loaded.task && !loaded.taskError) throw await noSuchTask(ctx.home, s);
  // direct: owner's one read (a pending task, or the asker's stamp) goes without execa (docs/budgets.md#owner-start-up).
  return judgeLoaded(ctx, new Tmux(ctx.socket, 'tmux', { direct: true }), s, loaded, askerKnown);
}

/** The `owner --json` object (docs/ownership.md#output). */
export function judgementJson(j: Judgement): {
  verdict: 0 | 9 | 5;
  slug: string;
  asker: string;
  owner: string | null;
  ownerSession: string | null;
  liveness: Liveness | null;
  via: 'sid' | 'pane' | null;
  reason: string;
  lastHandover: Handover | null;
  agent: string | null;
} {
  const d = j.decision;
  // The owner's agent, as the task recorded it from the Driver's process (docs/ownership.md#agents).
  const recorded = j.task && d.owner !== null && d.owner === ownerSid(j.task) ? j.task.driverAgent : undefined;
  return {
    verdict: d.verdict,
    slug: j.slug,
    asker: j.asker.sid,
    owner: d.owner,
    ownerSession: d.verdict === 9 ? (d.ownerSession ?? null) : null,
    liveness: d.liveness,
    via: d.via,
    reason: d.reason,
    lastHandover: lastHandover(j.task),
    agent: recorded === 'claude' || recorded === 'codex' || recorded === 'gemini' ? recorded : null,
  };
}
