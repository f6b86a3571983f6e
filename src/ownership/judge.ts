// The judge (docs/ownership.md#the-judge) as a PURE decision. No file, no tmux, no clock:
// the caller hands in the task (or the reason it could not be read), the asker,
// what driverPane carries (nonce and stamp, read together) and the liveness of
// the one session id the decision may need. The owner command, takeover and
// the supervisor (from one list-sessions snapshot) all call decide().
import type { Liveness, LiveRow } from '../registry/liveness';
import { decideSidLiveness } from '../registry/sid-liveness';
import { ownerSid, type Handover, type Task } from '../tasks/schema';
import type { NonceStamp, PaneRead } from '../tmux/session-marks';

export type Verdict = 0 | 9 | 5;
export type Via = 'sid' | 'pane';

export interface Decision {
  verdict: Verdict;
  /** The session id named as owner: the asker for 0, the other session for 9, null for 5. */
  owner: string | null;
  liveness: Liveness | null;
  via: Via | null;
  reason: string;
  /** Why, as a stable code (for tests, the status line and the dashboard). */
  code: DecisionCode;
  /** For a 9: the tmux session that carries the owner's stamp, when one does (the owner named by where it runs). */
  ownerSession?: string | null;
}

export type DecisionCode =
  | 'no-task'
  | 'task-invalid'
  | 'sid-asker'
  | 'sid-other'
  | 'pre-nonce'
  | 'tmux-error'
  | 'no-nonce'
  | 'nonce-mismatch'
  | 'booting'
  | 'pane-asker'
  | 'pane-other';

export interface DecideInput {
  slug: string;
  /** The task; null when task.json does not exist (and taskError is unset). */
  task: Task | null;
  /** Set when task.json exists but does not parse or validate. */
  taskError?: string;
  /** The asking session id; "" when nobody could be named (never gets 0). */
  asker: string;
  /** What driverPane carries; consulted only while the task is pending with a pane and a nonce. */
  paneRead?: PaneRead;
  /** Liveness of a session id (called at most once, for the owner a 9 names). */
  liveness: (sid: string) => Liveness;
  /** The tmux session carrying a stamp, to name the owner a 9 names by where it runs; null when none (or not read). */
  sessionOf?: (sid: string) => string | null;
}

/** The session a pending task's decision must read, or null when no tmux read is needed. */
export function paneToRead(task: Task | null): string | null {
  if (!task || ownerSid(task) !== '') return null;
  if (!task.driverPane || !task.spawnNonce) return null;
  return task.driverPane;
}

/**
 * The session id whose liveness decide() will ask for, given the same input
 * (lets an async caller compute exactly one liveness before deciding).
 */
export function livenessNeeded(input: Omit<DecideInput, 'liveness'>): string | null {
  const { task, taskError, asker, paneRead } = input;
  if (taskError !== undefined || !task) return null;
  const owner = ownerSid(task);
  if (owner !== '') return owner === asker && asker !== '' ? null : owner;
  if (paneToRead(task) === null || !paneRead || 'tmuxError' in paneRead) return null;
  if (paneRead.nonce !== task.spawnNonce || paneRead.stamp === '') return null;
  return paneRead.stamp === asker && asker !== '' ? null : paneRead.stamp;
}

const inSession = (session: string | null) => (session ? ` in tmux session ${session}` : '');

function takeoverHint(slug: string, liveness: Liveness): string {
  const force = liveness === 'gone' ? '' : ' --force (refused without it while that session may be live)';
  return `to take over on purpose: tmux-fleet takeover ${slug}${force}`;
}

export function decide(input: DecideInput): Decision {
  const { slug, task, taskError, asker, paneRead } = input;
  const five = (code: DecisionCode, reason: string): Decision => ({ verdict: 5, owner: null, liveness: null, via: null, reason, code });

  // 1. task.json missing or invalid.
  if (taskError !== undefined) return five('task-invalid', `task ${slug}: ${taskError}`);
  if (!task) return five('no-task', `no task ${slug}`);

  // 2. The owner is known.
  const owner = ownerSid(task);
  if (owner !== '') {
    if (asker !== '' && owner === asker) {
      return { verdict: 0, owner, liveness: 'live', via: 'sid', reason: `task ${slug}: you are its Driver`, code: 'sid-asker' };
    }
    const liveness = input.liveness(owner);
    const ownerSession = input.sessionOf?.(owner) ?? null;
    return {
      verdict: 9,
      owner,
      liveness,
      via: 'sid',
      reason: `task ${slug} is driven by ${owner}${inSession(ownerSession)} (${liveness}); ${takeoverHint(slug, liveness)}`,
      code: 'sid-other',
      ownerSession,
    };
  }

  // 3. Pending: only the session the spawn proved with its nonce can be named.
  const pane = paneToRead(task);
  if (pane === null) {
    return five(
      'pre-nonce',
      `task ${slug} is pending and records no ${task.driverPane ? 'spawnNonce' : 'driverPane'} (written before spawn nonces): nobody can be named; respawn it or take it over`,
    );
  }
  if (!paneRead) return five('tmux-error', `task ${slug}: session ${pane} was not read`);
  if ('tmuxError' in paneRead) return five('tmux-error', `task ${slug}: cannot read tmux session ${pane}: ${paneRead.tmuxError}`);
  if (paneRead.nonce === '') {
    return five('no-nonce', `task ${slug}: tmux session ${pane} is gone or carries no spawn nonce, so it is not the spawned Driver`);
  }
  if (paneRead.nonce !== task.spawnNonce) {
    return five('nonce-mismatch', `task ${slug}: tmux session ${pane} carries another spawn nonce (recreated or reused name), so it is not the spawned Driver`);
  }
  if (paneRead.stamp === '') {
    return five('booting', `task ${slug}: tmux session ${pane} is the spawned Driver but has no stamp yet (booting)`);
  }
  if (asker !== '' && paneRead.stamp === asker) {
    return { verdict: 0, owner: asker, liveness: 'live', via: 'pane', reason: `task ${slug}: you are the Driver spawned in ${pane}`, code: 'pane-asker' };
  }
  const liveness = input.liveness(paneRead.stamp);
  return {
    verdict: 9,
    owner: paneRead.stamp,
    liveness,
    via: 'pane',
    reason: `task ${slug}: the Driver spawned in ${pane} is ${paneRead.stamp} (${liveness}); ${takeoverHint(slug, liveness)}`,
    code: 'pane-other',
    ownerSession: pane,
  };
}

/** driverPane's read from a list-sessions snapshot (session name -> nonce and stamp). A missing session reads empty, as display-message does. */
export function paneReadFromSessions(sessions: ReadonlyMap<string, NonceStamp> | null, pane: string): PaneRead {
  if (sessions === null) return { tmuxError: 'the tmux snapshot could not be read' };
  return sessions.get(pane) ?? { nonce: '', stamp: '' };
}

/**
 * Liveness of a session id from data already read (docs/ownership.md#liveness):
 * its registry rows (following a park) when one is live; else the Driver's
 * recorded process (the task's record, or the process a stamp recorded); else
 * rows that name a process; else live while a tmux session carries it as its
 * stamp, gone when none does; unknown when the registry or tmux cannot be read.
 * `stamps`: every stamp of the snapshot (null: tmux not read); `stampProcesses`:
 * the liveness of the processes recorded with each stamp.
 */
export function livenessFromSnapshot(
  sid: string,
  registry: { readable: boolean; rows: readonly LiveRow[]; recorded?: ReadonlyMap<string, Liveness> },
  stamps: { has(sid: string): boolean } | null,
  stampProcesses?: ReadonlyMap<string, Liveness>,
): Liveness {
  return decideSidLiveness(sid, registry, registry.recorded?.get(sid), () =>
    stamps === null ? null : { carried: stamps.has(sid), processes: stampProcesses?.get(sid) ?? null },
  );
}

const stampIndexes = new WeakMap<ReadonlyMap<string, NonceStamp>, ReadonlyMap<string, string[]>>();
/** Stamp -> the sessions carrying it (by name), of a sessions snapshot (never changed once read), kept beside it. */
function stampIndex(sessions: ReadonlyMap<string, NonceStamp>): ReadonlyMap<string, string[]> {
  let index = stampIndexes.get(sessions);
  if (index === undefined) {
    const built = new Map<string, string[]>();
    for (const [name, { stamp }] of sessions) if (stamp !== '') built.set(stamp, [...(built.get(stamp) ?? []), name]);
    index = built;
    stampIndexes.set(sessions, index);
  }
  return index;
}

/** The session to name among those carrying a stamp: `prefer` (the task's driverPane) when it is one, else the first by name. */
export function pickCarrier(names: readonly string[], prefer?: string): string | null {
  if (prefer !== undefined && names.includes(prefer)) return prefer;
  return [...names].sort()[0] ?? null;
}

/** The session carrying `sid` in a snapshot (pickCarrier); null when none. */
export function sessionCarrying(sessions: ReadonlyMap<string, NonceStamp> | null, sid: string, prefer?: string): string | null {
  if (sessions === null || sid === '') return null;
  return pickCarrier(stampIndex(sessions).get(sid) ?? [], prefer);
}

/**
 * The supervisor's entry: the verdict for `asker` on a task, from one snapshot
 * of sessions and registry, without any I/O.
 */
export function judgeFromSnapshot(args: {
  slug: string;
  task: Task | null;
  taskError?: string;
  asker: string;
  sessions: ReadonlyMap<string, NonceStamp> | null;
  registry: { readable: boolean; rows: readonly LiveRow[]; recorded?: ReadonlyMap<string, Liveness> };
  /** The liveness of the agent processes recorded with each stamp (@fleet-stamp-agent), by session id. */
  stampProcesses?: ReadonlyMap<string, Liveness>;
}): Decision {
  const sessions = args.sessions;
  // Built only when a liveness is asked for, once per sessions map.
  const stamps = () => (sessions ? stampIndex(sessions) : null);
  const pane = paneToRead(args.task);
  return decide({
    slug: args.slug,
    task: args.task,
    taskError: args.taskError,
    asker: args.asker,
    paneRead: pane === null ? undefined : paneReadFromSessions(args.sessions, pane),
    liveness: (sid) => livenessFromSnapshot(sid, args.registry, stamps(), args.stampProcesses),
    sessionOf: (sid) => sessionCarrying(sessions, sid, args.task?.driverPane),
  });
}

/** The last handover of a task, or null. */
export function lastHandover(task: Task | null): Handover | null {
  const list = task?.handovers;
  return list && list.length > 0 ? (list[list.length - 1] ?? null) : null;
}

/** The human line (docs/ownership.md#output). */
export function verdictLine(slug: string, d: Decision): string {
  if (d.verdict === 0) return `0 owner (task ${slug}: ${d.reason.replace(/^task \S+: /, '')})`;
  if (d.verdict === 9) return `9 other ${d.owner} ${d.liveness} (${d.reason})`;
  return `5 unknown: ${d.reason}`;
}
