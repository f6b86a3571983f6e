// The view computed again where a wake changed something (docs/status.md#incremental-wakes):
// after rows changed (updateView, by the Follow chains they touch) or after the
// tmux snapshot changed (updateViewForSnapshot, by the sessions the diff names).
// A render with no history computes it whole (computeView, src/fleet/view.ts).
import type { LiveRow } from '../registry/liveness';
import { HopTracker } from '../registry/hop';
import { follow } from '../registry/follow';
import { ownerSid } from '../tasks/schema';
import type { TaskEntry } from '../tasks/store';
import type { SessionSnap, TmuxSnapshot } from '../tmux/snapshot';
import type { SnapshotDiff } from './snapshot-diff';
import { addTo, removeFrom } from '../set-index';
import type { FleetData } from './data';
import { type FleetView, type SessionProof, type SessionView, fleetView, sessionView, tasksAgain, viewInputs } from './view';

/**
 * The session and job ids whose rows decide what a session id shows: the id
 * itself and every link of its Follow chain (a row of any of them changing
 * can change its hop, its agent state or its liveness).
 */
export function chainKeys(sid: string, rows: readonly LiveRow[]): string[] {
  const keys = [sid];
  for (const link of follow(rows, sid).chain) {
    keys.push(link.sessionId);
    if (link.jobId) keys.push(link.jobId);
    if (link.parkedJobId) keys.push(link.parkedJobId);
  }
  return keys;
}

/**
 * Per session id a view was computed for (stamps, owners), the ids of its
 * chain (chainKeys), and the other way round: a wake finds the session ids a
 * change touches by the ids it names, not by a look at every session
 * (docs/status.md#incremental-wakes).
 */
export class ChainKeyIndex {
  private readonly keysOf = new Map<string, readonly string[]>();
  private readonly sidsOf = new Map<string, Set<string>>();

  get(sid: string): readonly string[] | undefined {
    return this.keysOf.get(sid);
  }

  has(sid: string): boolean {
    return this.keysOf.has(sid);
  }

  set(sid: string, keys: readonly string[]): void {
    for (const k of this.keysOf.get(sid) ?? []) removeFrom(this.sidsOf, k, sid);
    this.keysOf.set(sid, keys);
    for (const k of keys) addTo(this.sidsOf, k, sid);
  }

  clear(): void {
    this.keysOf.clear();
    this.sidsOf.clear();
  }

  /** The session ids whose chains hold any of `ids`. */
  touchedBy(ids: Iterable<string>): Set<string> {
    const out = new Set<string>();
    for (const id of ids) for (const sid of this.sidsOf.get(id) ?? []) out.add(sid);
    return out;
  }
}

/** What an incremental view was asked to recompute, and what it did (tests, the supervisor's stats). */
export interface ViewUpdate {
  view: FleetView;
  /** The sessions whose views were computed again. */
  sessions: ReadonlySet<string>;
  /** Their views now, by session name (the segments to render again). */
  redone: ReadonlyMap<string, SessionView>;
}

/**
 * The view after a change of registry rows or job states alone, with the
 * same tmux snapshot and task files as `prev`
 * (docs/status.md#incremental-wakes): only the sessions and tasks whose
 * session ids, or whose chains' ids, the change touched are computed again;
 * the others keep their views. `hitSids`: the session ids the change touched
 * and those whose chains (as of `prev`) hold one of them (ChainKeyIndex.touchedBy);
 * `goneChanged`: the sessions whose stamped agent was found gone, or back, by
 * this wake's proof.
 */
export function updateView(
  prev: FleetView,
  snap: TmuxSnapshot,
  data: FleetData,
  tracker: HopTracker,
  proof: SessionProof,
  hitSids: ReadonlySet<string>,
  goneChanged: ReadonlySet<string> = new Set(),
): ViewUpdate {
  const v = viewInputs(snap, data, proof, true);
  const hit = (sid: string) => sid !== '' && hitSids.has(sid);
  // The sessions whose stamp, or whose task's owner, the change hit (found by look-ups), and those whose agent was found gone or back.
  const places = new Set<number>();
  for (const sid of hitSids) for (const i of v.sessionsOfSid.get(sid) ?? []) places.add(i);
  for (const name of goneChanged) {
    const i = v.placeOf.get(name);
    if (i !== undefined) places.add(i);
  }
  const redo = new Set<string>();
  for (const i of [...places].sort((a, b) => a - b)) redo.add((v.snapshot.sessions[i] as SessionSnap).name);
  // In snapshot order, as redo was filled.
  const stamps: [string, string][] = [];
  for (const name of redo) {
    const stamp = v.sessionByName.get(name)?.stamp;
    if (stamp) stamps.push([name, stamp]);
  }
  const update = tracker.updateSome(stamps, data.rows);
  const redone = new Map<string, SessionView>();
  const sessions = prev.sessions.map((old) => {
    if (!redo.has(old.session)) return old;
    const s = v.sessionByName.get(old.session);
    const now = (s && sessionView(s, v, update.sessions)) || old;
    redone.set(now.session, now);
    return now;
  });
  const tasks = tasksAgain(prev.tasks, data, v, update.sessions, (old) => hit(old.owner) || (old.session !== null && redo.has(old.session)));
  return { view: fleetView(sessions, tasks, update.events, data), sessions: redo, redone };
}

/** What updateViewForSnapshot computed again, and the views it replaced (the shown ids move with them). */
export interface SnapshotViewUpdate extends ViewUpdate {
  /** The views of the last wake that are gone or replaced. */
  dropped: readonly SessionView[];
  /** Sessions computed again that show nothing now (neither stamped nor bound): their segments are cleared. */
  cleared: ReadonlySet<string>;
}

/**
 * The view after tmux changed (a new snapshot; rows may have changed too),
 * with the same task files as `prev` (docs/status.md#incremental-wakes): the
 * sessions the snapshot diff names, and what depends on them, are computed
 * again. A task depends on the sessions carrying its owner's stamp and on its
 * driverPane (the judge reads their stamps, nonces and recorded processes); a
 * session on its task. `hitSids`: the session ids a row change touched (as
 * for updateView); `goneChanged`: sessions whose stamped agent was found gone,
 * or back, by this wake's proof.
 */
export function updateViewForSnapshot(
  prev: FleetView,
  snap: TmuxSnapshot,
  data: FleetData,
  tracker: HopTracker,
  proof: SessionProof,
  diff: SnapshotDiff,
  hitSids: ReadonlySet<string>,
  goneChanged: ReadonlySet<string>,
): SnapshotViewUpdate {
  const v = viewInputs(snap, data, proof);
  // The ids and names whose holders changed: a verdict reading any of them may change.
  const sids = new Set(hitSids);
  const names = new Set([...diff.changed, ...diff.removed]);
  for (const name of diff.changed) {
    const stamp = v.sessionByName.get(name)?.stamp;
    if (stamp) sids.add(stamp);
  }
  for (const s of diff.before.values()) if (s.stamp) sids.add(s.stamp);
  const taskRedo = new Set<number>();
  data.tasks.forEach((entry, i) => {
    const task = entry.task;
    if (!task) return;
    const owner = ownerSid(task);
    const pane = task.driverPane;
    const paneStamp = pane ? v.sessionByName.get(pane)?.stamp : undefined;
    if ((owner !== '' && sids.has(owner)) || (pane && names.has(pane)) || (paneStamp && sids.has(paneStamp))) taskRedo.add(i);
  });
  const places = new Set<number>();
  for (const name of diff.changed) places.add(v.placeOf.get(name) as number);
  for (const name of goneChanged) {
    const i = v.placeOf.get(name);
    if (i !== undefined) places.add(i);
  }
  for (const sid of sids) for (const i of v.sessionsOfSid.get(sid) ?? []) places.add(i);
  for (const t of taskRedo) for (const i of v.sessionsOfSlug.get((data.tasks[t] as TaskEntry).slug) ?? []) places.add(i);
  const redo = new Set<string>();
  const stamps: [string, string][] = [];
  const unstamped: string[] = [...diff.removed];
  for (const i of [...places].sort((a, b) => a - b)) {
    const s = v.snapshot.sessions[i] as SessionSnap;
    redo.add(s.name);
    if (s.stamp) stamps.push([s.name, s.stamp]);
    else unstamped.push(s.name);
  }
  tracker.forget(unstamped);
  const update = tracker.updateSome(stamps, data.rows);
  const prevByName = new Map(prev.sessions.map((s) => [s.session, s]));
  const dropped: SessionView[] = [];
  for (const name of diff.removed) {
    const old = prevByName.get(name);
    if (old) dropped.push(old);
  }
  const redone = new Map<string, SessionView>();
  const cleared = new Set<string>();
  const sessions: SessionView[] = [];
  for (const s of v.snapshot.sessions) {
    const old = prevByName.get(s.name);
    if (!redo.has(s.name)) {
      if (old) sessions.push(old);
      continue;
    }
    if (old) dropped.push(old);
    const now = sessionView(s, v, update.sessions);
    if (now) {
      sessions.push(now);
      redone.set(s.name, now);
    } else cleared.add(s.name);
  }
  const tasks = tasksAgain(
    prev.tasks,
    data,
    v,
    update.sessions,
    (old, i) => taskRedo.has(i) || (old.session !== null && (redo.has(old.session) || diff.removed.has(old.session))),
  );
  return { view: fleetView(sessions, tasks, update.events, data), sessions: redo, redone, dropped, cleared };
}
