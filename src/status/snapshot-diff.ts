// What a new tmux snapshot changed since the last one, session by session
// (docs/status.md#incremental-wakes): a wake for a tmux change recomputes the
// sessions that differ and what depends on them, not the whole fleet. Pure.
import type { PaneSnap, SessionSnap, TmuxSnapshot } from '../tmux/snapshot';

/** The fields of a session a view is computed from (the segment options it shows are outputs, not inputs). */
const INPUT_FIELDS = ['created', 'attached', 'stamp', 'nonce', 'task', 'agentProc'] as const satisfies readonly (keyof SessionSnap)[];

export interface SnapshotDiff {
  /** Sessions of the new snapshot that are new, or whose inputs or panes differ, by name. */
  changed: ReadonlySet<string>;
  /** Sessions of the last snapshot that are gone (a rename is one gone, one new). */
  removed: ReadonlySet<string>;
  /** The last snapshot's sessions among those changed or removed, by name: what they were. */
  before: ReadonlyMap<string, SessionSnap>;
}

/** Each session's panes as one string (id, first process, window, job), in the snapshot's order. */
function panesBySession(panes: readonly PaneSnap[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of panes) {
    const key = `${p.id} ${p.pid} ${p.window} ${p.job}`;
    const had = out.get(p.session);
    out.set(p.session, had === undefined ? key : `${had}\n${key}`);
  }
  return out;
}

/**
 * The sessions `after` changed from `before`, or null when the snapshots
 * differ in what every session shows (the style options, the poll interval):
 * then everything is computed again.
 */
export function diffSnapshots(before: TmuxSnapshot, after: TmuxSnapshot): SnapshotDiff | null {
  const keys = Object.keys(after.config);
  if (keys.length !== Object.keys(before.config).length || keys.some((k) => after.config[k] !== before.config[k])) return null;
  const old = new Map(before.sessions.map((s) => [s.name, s]));
  const oldPanes = panesBySession(before.panes);
  const newPanes = panesBySession(after.panes);
  const changed = new Set<string>();
  const seen = new Set<string>();
  const was = new Map<string, SessionSnap>();
  for (const s of after.sessions) {
    seen.add(s.name);
    const o = old.get(s.name);
    if (o === undefined) {
      changed.add(s.name);
      continue;
    }
    if (INPUT_FIELDS.some((f) => s[f] !== o[f]) || oldPanes.get(s.name) !== newPanes.get(s.name)) {
      changed.add(s.name);
      was.set(s.name, o);
    }
  }
  const removed = new Set<string>();
  for (const s of before.sessions) {
    if (seen.has(s.name)) continue;
    removed.add(s.name);
    was.set(s.name, s);
  }
  return { changed, removed, before: was };
}
