// What a wake computes again: the one place that decides it (docs/status.md#incremental-wakes).
//
// The dependency rules, written once:
// - Rows, job state files or hook signals changed, or watched processes died
//   (their rows judged again as if rewritten), the tmux snapshot the same
//   ('rows'): the sessions whose stamp, or whose task's owner, has a Follow
//   chain holding an id the change touched (ChainKeyIndex, update.ts), those
//   whose stamped agent was found gone or back, and the tasks they show.
// - A new tmux snapshot, the task list the same ('tmux'): the sessions the
//   snapshot diff names (new, renamed, or whose marks or panes changed:
//   snapshot-diff.ts), the tasks whose owner's stamp or pending Driver's
//   session they carry or carried, the sessions showing those tasks, and what
//   the row changes of the same wake touch, as above.
// - Everything else ('full'): the first wake, a recheck of the pane proof, a
//   task file added or removed, or a death of a process no row holds (the load
//   says `touched` null), a style option
//   changed, or a diff of more than a quarter of the sessions (more than 8):
//   every session and task computed from nothing but the hop tracker's and the
//   proof's memory.
// The render (src/status/render.ts) follows the plan for discovery, the pane
// proof, the view and the values; each says in its own branch what it keeps.
import type { TmuxSnapshot } from '../tmux/snapshot';
import { diffSnapshots, type SnapshotDiff } from './snapshot-diff';

export type WakePlan<Last> =
  | { mode: 'full' }
  | { mode: 'rows'; base: Last; touched: ReadonlySet<string> }
  | { mode: 'tmux'; base: Last; touched: ReadonlySet<string>; diff: SnapshotDiff };

/**
 * The plan of a wake: from its hint (whether only the registry's side
 * changed; a recheck), what the load found touched (null: every row judged
 * again), and the last render's snapshot against this one.
 */
export function planWake<Last extends { snapshot: TmuxSnapshot }>(
  hint: { registryOnly: boolean; recheck?: boolean },
  touched: ReadonlySet<string> | null,
  last: Last | null,
  snapshot: TmuxSnapshot,
): WakePlan<Last> {
  if (hint.recheck || touched === null || last === null) return { mode: 'full' };
  if (last.snapshot === snapshot) return hint.registryOnly ? { mode: 'rows', base: last, touched } : { mode: 'full' };
  const diff = smallDiff(last.snapshot, snapshot);
  return diff ? { mode: 'tmux', base: last, touched, diff } : { mode: 'full' };
}

/** The diff, when it is small enough to be worth an incremental wake: at most a quarter of the sessions (8 at least). */
function smallDiff(before: TmuxSnapshot, after: TmuxSnapshot): SnapshotDiff | null {
  const diff = diffSnapshots(before, after);
  if (diff === null) return null;
  return diff.changed.size + diff.removed.size <= Math.max(8, after.sessions.length / 4) ? diff : null;
}
