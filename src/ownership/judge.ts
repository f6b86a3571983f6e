// The judge (docs/ownership.md#the-judge) as a PURE decision. No file, no tmux, no clock:
// the caller hands in the task (or the reason it could not be read), the asker,
// what driverPane carries (nonce and stamp, read together) and the liveness of
// the one session id the decision may need. The owner command, takeover and
// the supervisor (from one list-sessions snapshot) all call decide().
import type { Liveness, LiveRow } from '../registry/liveness';
import { decideSidLiveness } from '../registry/sid-liveness';
import { ownerSid, type Handover, type Task } from '../tasks/schema';
import type { NonceStamp, PaneRead } from '../tmux/session-marks';
import { shortId } from '../registry/follow';
import { printable } from '../text';

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
  /** The tmux session that carries the owner's stamp, when one does (the owner named by where it runs); read for a 9, and for a 0 where a snapshot tells. */
  ownerSession?: string | null;
  /** A pending task: the session the decision read (its driverPane). */
  pane?: string;
  /** What the reason quotes: the task file's problem, tmux's error, the field a task written before nonces lacks. */
  detail?: string;
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
  | 'spawning'
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
  /**
   * The spawn nonce the asking session carries (the supervisor, tasks and the
   * dashboard: from their snapshot); with `locked`, tells a spawn that has
   * made its session but not yet written its record (`spawning`).
   */
  askerNonce?: string;
  /** Whether a live process held the task's lock when, before the task was read, it was looked at. */
  locked?: () => boolean;
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

function takeoverHint(slug: string, liveness: Liveness): string {
  const force = liveness === 'gone' ? '' : ' --force (refused without it while that session may be live)';
  return `to take over on purpose: tmux-fleet takeover ${slug}${force}`;
}

/** The owner a decision names: by the tmux session it runs in when one carries its stamp, `rev (f152b562)`, else `f152b562`. */
export function ownerName(d: Pick<Decision, 'owner' | 'ownerSession'>): string {
  const id = shortId(d.owner ?? '', 8);
  return d.ownerSession ? `${printable(d.ownerSession)} (${id})` : id;
}

/**
 * A decision's reason, worded for `viewer`, the session id of whoever reads
 * it (docs/ownership.md#output): "you" only when the viewer is the owner the
 * decision names; anybody else (a session that is not the Driver, nobody:
 * '') reads the Driver named by where it runs. The one wording of a verdict:
 * `owner` (for its asker), `takeover`, `tasks`, the dashboard and `prefix O`.
 */
export function reasonFor(slug: string, d: Decision, viewer: string): string {
  const pane = d.pane ?? '';
  switch (d.code) {
    case 'task-invalid':
      return `task ${slug}: ${d.detail ?? 'task.json cannot be read'}`;
    case 'no-task':
      return `no task ${slug}`;
    case 'pre-nonce':
      return `task ${slug} is pending and records no ${d.detail ?? 'spawnNonce'} (written before spawn nonces): nobody can be named; respawn it or take it over`;
    case 'tmux-error':
      return d.detail === undefined ? `task ${slug}: session ${pane} was not read` : `task ${slug}: cannot read tmux session ${pane}: ${d.detail}`;
    case 'no-nonce':
      return `task ${slug}: tmux session ${pane} is gone or carries no spawn nonce, so it is not the spawned Driver`;
    case 'nonce-mismatch':
      return `task ${slug}: tmux session ${pane} carries another spawn nonce (recreated or reused name), so it is not the spawned Driver`;
    case 'booting':
      return `task ${slug}: tmux session ${pane} is the spawned Driver but has no stamp yet (booting)`;
    case 'spawning':
      return `task ${slug}: a spawn has made ${pane ? `tmux session ${pane}` : 'its Driver\'s tmux session'} and is writing the record (booting)`;
    default: {
      if (viewer !== '' && d.owner === viewer) return d.via === 'pane' ? `task ${slug}: you are the Driver spawned in ${pane}` : `task ${slug}: you are its Driver`;
      const liveness = d.liveness ?? 'unknown';
      return `task ${slug}: Driver: ${ownerName(d)}, ${liveness}; ${takeoverHint(slug, liveness)}`;
    }
  }
}

export function decide(input: DecideInput): Decision {
  const { slug, task, taskError, asker, paneRead } = input;
  const worded = (d: Omit<Decision, 'reason'>): Decision => ({ ...d, reason: reasonFor(slug, d as Decision, asker) });
  const five = (code: DecisionCode, extra: Pick<Decision, 'pane' | 'detail'> = {}): Decision =>
    worded({ verdict: 5, owner: null, liveness: null, via: null, code, ...extra });

  // A spawn between its tmux call and its record's write (docs/ownership.md#spawn): the session it made carries a
  // nonce the record does not hold yet, and the spawn holds the task's lock. The Driver is booting, not unknown.
  const spawnAt = (nonce: string | undefined) => nonce !== undefined && nonce !== '' && nonce !== task?.spawnNonce && (input.locked?.() ?? false);

  // 1. task.json missing or invalid.
  if (taskError !== undefined) return five('task-invalid', { detail: taskError });
  if (!task) return five(spawnAt(input.askerNonce) ? 'spawning' : 'no-task');

  // 2. The owner is known.
  const owner = ownerSid(task);
  if (owner !== '') {
    const ownerSession = input.sessionOf?.(owner) ?? null;
    if (asker !== '' && owner === asker) return worded({ verdict: 0, owner, liveness: 'live', via: 'sid', code: 'sid-asker', ownerSession });
    // A respawn of a decided task: the new session, not yet recorded, is not the old owner's other.
    if (spawnAt(input.askerNonce)) return five('spawning');
    const liveness = input.liveness(owner);
    return worded({ verdict: 9, owner, liveness, via: 'sid', code: 'sid-other', ownerSession });
  }

  // 3. Pending: only the session the spawn proved with its nonce can be named.
  const pane = paneToRead(task);
  if (pane === null) return five('pre-nonce', { detail: task.driverPane ? 'spawnNonce' : 'driverPane' });
  if (!paneRead) return five('tmux-error', { pane });
  if ('tmuxError' in paneRead) return five('tmux-error', { pane, detail: paneRead.tmuxError });
  if (paneRead.nonce === '') return five('no-nonce', { pane });
  if (paneRead.nonce !== task.spawnNonce) return five(spawnAt(paneRead.nonce) ? 'spawning' : 'nonce-mismatch', { pane });
  if (paneRead.stamp === '') return five('booting', { pane });
  if (asker !== '' && paneRead.stamp === asker) {
    return worded({ verdict: 0, owner: asker, liveness: 'live', via: 'pane', code: 'pane-asker', ownerSession: pane, pane });
  }
  const liveness = input.liveness(paneRead.stamp);
  return worded({ verdict: 9, owner: paneRead.stamp, liveness, via: 'pane', code: 'pane-other', ownerSession: pane, pane });
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
  /** The spawn nonce the asking session carries, and whether the task's lock was held (decide: `spawning`). */
  askerNonce?: string;
  locked?: () => boolean;
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
    askerNonce: args.askerNonce,
    locked: args.locked,
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
