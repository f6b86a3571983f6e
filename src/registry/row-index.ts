// Registry rows grouped by session id and by job id, built once per rows
// array and kept beside it (a WeakMap), so the supervisor's ~100 follows and
// liveness look-ups per wake each cost a map look-up, not a scan of every row.
// The arrays indexed are never changed after they are built (liveRows makes a
// new one on every read). A wake that rewrote a few rows carries the last
// array's indexes over rather than group 2000 rows again (carryRowIndexes).
type Keyed = { row: { sessionId: string; jobId?: string | undefined } };

/** Past this many replaced rows, the next look-up groups the new array afresh. */
const CARRY_MAX = 64;

function memoGroup(key: (r: Keyed) => string | undefined) {
  const cache = new WeakMap<readonly Keyed[], Map<string, Keyed[]>>();
  const get = <T extends Keyed>(rows: readonly T[]): ReadonlyMap<string, readonly T[]> => {
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
  /** `next`'s index from `prev`'s, when `prev` has one and `next` replaces a few of its rows in place. */
  const carry = (prev: readonly Keyed[], next: readonly Keyed[], replaced: readonly number[]): void => {
    const old = cache.get(prev);
    if (old === undefined || cache.has(next)) return;
    const groups = new Map(old);
    // Each list touched is copied before it changes: `prev`'s index stays as it was.
    const copied = new Set<string>();
    let place: Map<Keyed, number> | undefined;
    const edit = (k: string | undefined, change: (list: Keyed[]) => Keyed[]) => {
      if (k === undefined || k === '') return;
      const list = groups.get(k) ?? [];
      const out = change(copied.has(k) ? list : [...list]);
      copied.add(k);
      if (out.length > 0) groups.set(k, out);
      else groups.delete(k);
    };
    for (const i of replaced) {
      const was = prev[i] as Keyed;
      const now = next[i] as Keyed;
      edit(key(was), (list) => list.filter((r) => r !== was));
      edit(key(now), (list) => {
        if (list.length === 0) return [now];
        // The order of `next`: a row's place in its list follows its place in the array.
        place ??= new Map(next.map((r, j) => [r, j]));
        const at = list.findIndex((r) => (place?.get(r) ?? -1) > i);
        if (at < 0) list.push(now);
        else list.splice(at, 0, now);
        return list;
      });
    }
    cache.set(next, groups);
  };
  return { get, carry };
}

const bySession = memoGroup((r) => r.row.sessionId);
const byJob = memoGroup((r) => r.row.jobId);

/** The rows holding each session id. */
export const rowsBySession: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = bySession.get;

/** The rows running each job id. */
export const rowsByJob: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = byJob.get;

/**
 * Gives `next` the indexes `prev` has, when `next` is `prev` with a few rows
 * replaced in place (the same length, the others the same objects): a wake
 * for a changed row costs a copy of the index, not a grouping of every row
 * (docs/status.md#incremental-wakes). Otherwise nothing: the first look-up groups `next`.
 */
export function carryRowIndexes(prev: readonly Keyed[], next: readonly Keyed[]): void {
  if (prev === next || prev.length !== next.length) return;
  const replaced: number[] = [];
  for (let i = 0; i < next.length; i++) {
    if (prev[i] === next[i]) continue;
    replaced.push(i);
    if (replaced.length > CARRY_MAX) return;
  }
  bySession.carry(prev, next, replaced);
  byJob.carry(prev, next, replaced);
}
