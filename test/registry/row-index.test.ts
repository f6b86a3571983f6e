// The rows by session id and by job id: an index carried over from the last
// rows array (a wake that rewrote a few rows) equals one built afresh.
import { describe, expect, it } from 'vitest';
import { carryRowIndexes, rowsByJob, rowsBySession } from '../../src/registry/row-index';

type R = { row: { sessionId: string; jobId?: string }; n: number };
const r = (n: number, sessionId: string, jobId?: string): R => ({ row: { sessionId, ...(jobId ? { jobId } : {}) }, n });
const plain = (m: ReadonlyMap<string, readonly R[]>) => Object.fromEntries([...m].map(([k, list]) => [k, list.map((x) => x.n)]).sort());

function base(): R[] {
  return [r(0, 'a'), r(1, 'b', 'j1'), r(2, 'a'), r(3, 'c'), r(4, '', 'j2'), r(5, 'b')];
}

const cases: { name: string; change: (rows: R[]) => R[] }[] = [
  { name: 'one row rewritten, same id', change: (rows) => rows.map((x, i) => (i === 3 ? r(13, 'c') : x)) },
  { name: 'a row moves to another session id', change: (rows) => rows.map((x, i) => (i === 0 ? r(10, 'c') : x)) },
  { name: 'a row takes a new session id', change: (rows) => rows.map((x, i) => (i === 3 ? r(13, 'd') : x)) },
  { name: 'a row between two of its session keeps the array order', change: (rows) => rows.map((x, i) => (i === 2 ? r(12, 'b') : x)) },
  { name: 'a job gained and a job lost', change: (rows) => rows.map((x, i) => (i === 1 ? r(11, 'b') : i === 3 ? r(13, 'c', 'j3') : x)) },
  { name: 'an empty session id stays out', change: (rows) => rows.map((x, i) => (i === 0 ? r(10, '') : x)) },
  { name: 'every row replaced', change: (rows) => rows.map((x) => r(x.n + 20, x.row.sessionId, x.row.jobId)) },
  { name: 'a row removed (another length: built afresh)', change: (rows) => rows.slice(1) },
  { name: 'a row added', change: (rows) => [...rows, r(6, 'a')] },
];

describe('carryRowIndexes', () => {
  it.each(cases)('$name', ({ change }) => {
    const prev = base();
    const before = { session: plain(rowsBySession(prev)), job: plain(rowsByJob(prev)) };
    const next = change(prev);
    carryRowIndexes(prev, next);
    const fresh = next.map((x) => x);
    expect(plain(rowsBySession(next))).toEqual(plain(rowsBySession(fresh)));
    expect(plain(rowsByJob(next))).toEqual(plain(rowsByJob(fresh)));
    // The last array's index is left as it was.
    expect({ session: plain(rowsBySession(prev)), job: plain(rowsByJob(prev)) }).toEqual(before);
  });

  it('carries only when the last array was indexed, and never replaces an index already built', () => {
    const prev = base();
    const next = prev.map((x, i) => (i === 0 ? r(10, 'z') : x));
    carryRowIndexes(prev, next);
    expect(plain(rowsBySession(next)).z).toEqual([10]);
    const again = next.map((x, i) => (i === 0 ? r(20, 'y') : x));
    rowsBySession(again);
    carryRowIndexes(next, again);
    expect(plain(rowsBySession(again)).y).toEqual([20]);
  });

  it('past 64 replaced rows the next look-up groups afresh, with the same answer', () => {
    const prev = Array.from({ length: 200 }, (_, i) => r(i, `s${i % 50}`));
    rowsBySession(prev);
    const next = prev.map((x, i) => (i < 100 ? r(i + 1000, `t${i % 7}`) : x));
    carryRowIndexes(prev, next);
    expect(plain(rowsBySession(next))).toEqual(plain(rowsBySession(next.map((x) => x))));
  });
});
