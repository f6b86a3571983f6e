// Registry rows grouped by session id, by job id and by the job a tab parks on, built once per rows
// array and kept beside it (a WeakMap), so the supervisor's ~100 follows and
// liveness look-ups per wake each cost a map look-up, not a scan of every row.
// The arrays indexed are never changed after they are built (liveRows makes a
// new one on every read).
type Keyed = { row: { sessionId: string; jobId?: string | undefined; parkedJobId?: string | undefined } };

function memoGroup(key: (r: Keyed) => string | undefined) {
  const cache = new WeakMap<readonly Keyed[], Map<string, Keyed[]>>();
  const group = <T extends Keyed>(rows: readonly T[]): ReadonlyMap<string, readonly T[]> => {
    let groups = cache.get(rows);
    if (groups === undefined) {
      groups = new Map();
      for (const r of rows) {
        const k = key(r);
        if (k === undefined || k === '') continue;
        const list = groups.get(k);
        if (list) list.push(r);
        else groups.set(k, [r]);
      }
      cache.set(rows, groups);
    }
    return groups as Map<string, T[]>;
  };
  /**
   * The index of `before` handed to `after`, a copy of it with the rows of
   * `swapped` replaced in place: a wake of the supervisor changes a few rows of
   * thousands (docs/status.md#incremental-wakes). The index is moved, not
   * copied: asked again for `before`, it is built afresh. Not moved (built when
   * asked) when a swap changes a row's key.
   */
  const move = <T extends Keyed>(before: readonly T[], after: readonly T[], swapped: readonly (readonly [T, T])[]): void => {
    const groups = cache.get(before);
    if (groups === undefined || swapped.some(([old, now]) => key(old) !== key(now))) return;
    cache.delete(before);
    for (const [old, now] of swapped) {
      const k = key(old);
      if (k === undefined || k === '') continue;
      // A new list: one handed out before keeps the rows it held.
      const list = groups.get(k)?.map((r) => (r === old ? now : r));
      if (list) groups.set(k, list);
    }
    cache.set(after, groups);
  };
  return { group, move };
}

const bySession = memoGroup((r) => r.row.sessionId);
const byJob = memoGroup((r) => r.row.jobId);
const byParkedJob = memoGroup((r) => r.row.parkedJobId);

/** The rows holding each session id. */
export const rowsBySession: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = bySession.group;

/** The rows running each job id. */
export const rowsByJob: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = byJob.group;

/** The rows whose work is parked on each job id (a tab's `parkedJobId`). */
export const rowsByParkedJob: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = byParkedJob.group;

/** Every index of `before` moved to `after`: `before` with each pair's first row replaced by its second, in place. */
export function moveRowIndexes<T extends Keyed>(before: readonly T[], after: readonly T[], swapped: readonly (readonly [T, T])[]): void {
  bySession.move(before, after, swapped);
  byJob.move(before, after, swapped);
  byParkedJob.move(before, after, swapped);
}
