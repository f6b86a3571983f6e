// What a new tmux snapshot changed since the last one, session by session
// (docs/status.md#incremental-wakes): a wake for a tmux change recomputes the
// sessions that differ and what depends on them, not the whole fleet. Pure.
import { titleClass } from '../agents/state';
import type { SessionSnap, TmuxSnapshot } from '../tmux/snapshot';

/** The fields of a session a view is computed from (the segment options it shows are outputs, not inputs). */
const INPUT_FIELDS = ['created', 'attached', 'stamp', 'nonce', 'task', 'agentProc', 'unseen'] as const satisfies readonly (keyof SessionSnap)[];

export interface SnapshotDiff {
  /** Sessions of the new snapshot that are new, or whose inputs or panes differ, by name. */
  changed: ReadonlySet<string>;
  /** Sessions of the last snapshot that are gone (a rename is one gone, one new). */
  removed: ReadonlySet<string>;
  /** The last snapshot's sessions among those changed or removed, by name: what they were. */
  before: ReadonlyMap<string, SessionSnap>;
  /** New name -> old name: a new session with the marks and the panes of one gone (a rename). */
  renamed: ReadonlyMap<string, string>;
}

/** A snapshot's sessions by name, and each session's panes as one string (id, first process, window, job, title class). */
interface SnapshotIndex {
  byName: Map<string, SessionSnap>;
  panes: Map<string, string>;
}

/** Built once per snapshot: the last one's is kept for the next diff. */
const indexes = new WeakMap<TmuxSnapshot, SnapshotIndex>();

function indexOf(snapshot: TmuxSnapshot): SnapshotIndex {
  let index = indexes.get(snapshot);
  if (index) return index;
  const panes = new Map<string, string>();
  for (const p of snapshot.panes) {
    // A title only by its class: a spinner's frames are one class (src/agents/state.ts).
    const key = `${p.id} ${p.pid} ${p.window} ${p.job} ${titleClass(p.title)}`;
    const had = panes.get(p.session);
    panes.set(p.session, had === undefined ? key : `${had}\n${key}`);
  }
  index = { byName: new Map(snapshot.sessions.map((s) => [s.name, s])), panes };
  indexes.set(snapshot, index);
  return index;
}

const sameInputs = (a: SessionSnap, b: SessionSnap) => INPUT_FIELDS.every((f) => a[f] === b[f]);

/**
 * The sessions `after` changed from `before`, or null when the snapshots
 * differ in what every session shows (the style options, the poll interval):
 * then everything is computed again.
 */
export function diffSnapshots(before: TmuxSnapshot, after: TmuxSnapshot): SnapshotDiff | null {
  const keys = Object.keys(after.config);
  if (keys.length !== Object.keys(before.config).length || keys.some((k) => after.config[k] !== before.config[k])) return null;
  const was = indexOf(before);
  const now = indexOf(after);
  const changed = new Set<string>();
  const previous = new Map<string, SessionSnap>();
  for (const s of after.sessions) {
    const o = was.byName.get(s.name);
    if (o === undefined) changed.add(s.name);
    else if (!sameInputs(s, o) || was.panes.get(s.name) !== now.panes.get(s.name)) {
      changed.add(s.name);
      previous.set(s.name, o);
    }
  }
  const removed = new Set<string>();
  const gonePanes = new Map<string, string>();
  for (const s of before.sessions) {
    if (now.byName.has(s.name)) continue;
    removed.add(s.name);
    previous.set(s.name, s);
    const panes = was.panes.get(s.name);
    if (panes !== undefined) gonePanes.set(panes, s.name);
  }
  const renamed = new Map<string, string>();
  if (gonePanes.size > 0) {
    for (const name of changed) {
      if (was.byName.has(name)) continue;
      const from = gonePanes.get(now.panes.get(name) ?? '');
      if (from !== undefined && sameInputs(now.byName.get(name) as SessionSnap, was.byName.get(from) as SessionSnap)) renamed.set(name, from);
    }
  }
  return { changed, removed, before: previous, renamed };
}
