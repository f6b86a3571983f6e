// Registry rows grouped by session id and by job id, built once per rows
// array and kept beside it (a WeakMap), so the supervisor's ~100 follows and
// liveness look-ups per wake each cost a map look-up, not a scan of every row.
// The arrays indexed are never changed after they are built (liveRows makes a
// new one on every read).
type Keyed = { row: { sessionId: string; jobId?: string | undefined } };

function memoGroup(key: (r: Keyed) => string | undefined) {
  const cache = new WeakMap<readonly Keyed[], Map<string, Keyed[]>>();
  return <T extends Keyed>(rows: readonly T[]): ReadonlyMap<string, readonly T[]> => {
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
}

/** The rows holding each session id. */
export const rowsBySession: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = memoGroup((r) => r.row.sessionId);

/** The rows running each job id. */
export const rowsByJob: <T extends Keyed>(rows: readonly T[]) => ReadonlyMap<string, readonly T[]> = memoGroup((r) => r.row.jobId);
