// The rows-by-session, rows-by-job and rows-by-parked-job indexes, and their move to the next rows array of a wake.
import { describe, expect, it } from 'vitest';
import { moveRowIndexes, rowsByJob, rowsByParkedJob, rowsBySession } from '../../src/registry/row-index';
import { prng } from '../helpers/random';

type Row = { row: { sessionId: string; jobId?: string; parkedJobId?: string }; n: number };
const r = (n: number, sessionId: string, jobId?: string, parkedJobId?: string): Row => ({
  row: { sessionId, ...(jobId !== undefined ? { jobId } : {}), ...(parkedJobId !== undefined ? { parkedJobId } : {}) },
  n,
});

/** An index as plain data: key → the numbers of its rows, in order. */
const plain = (index: ReadonlyMap<string, readonly Row[]>) => Object.fromEntries([...index].map(([k, rows]) => [k, rows.map((x) => x.n)]));
/** The same rows in a new array, so nothing is cached for it. */
const fresh = (rows: readonly Row[]) => plain(rowsBySession([...rows]));
const freshJobs = (rows: readonly Row[]) => plain(rowsByJob([...rows]));
const freshParked = (rows: readonly Row[]) => plain(rowsByParkedJob([...rows]));

describe('rowsBySession, rowsByJob and rowsByParkedJob', () => {
  it('group the rows by key in their order; an empty or missing key is not indexed', () => {
    const rows = [r(1, 'a', 'j1'), r(2, 'b', undefined, 'j1'), r(3, 'a', ''), r(4, '', 'j1'), r(5, 'c', undefined, ''), r(6, 'd', undefined, 'j2')];
    expect(plain(rowsBySession(rows))).toEqual({ a: [1, 3], b: [2], c: [5], d: [6] });
    expect(plain(rowsByJob(rows))).toEqual({ j1: [1, 4] });
    expect(plain(rowsByParkedJob(rows))).toEqual({ j1: [2], j2: [6] });
  });
});

describe('moveRowIndexes', () => {
  const base = [r(1, 'a', 'j1'), r(2, 'b', undefined, 'j1'), r(3, 'a', 'j2'), r(4, 'c', 'j1')];
  const cases: { name: string; swaps: [number, Row][]; moved: [sessions: boolean, jobs: boolean, parked: boolean] }[] = [
    { name: 'one row rewritten with the same keys', swaps: [[1, r(12, 'b', undefined, 'j1')]], moved: [true, true, true] },
    { name: 'two rows of one session', swaps: [[0, r(11, 'a', 'j1')], [2, r(13, 'a', 'j2')]], moved: [true, true, true] },
    { name: 'the same place twice in one wake', swaps: [[3, r(14, 'c', 'j1')], [3, r(24, 'c', 'j1')]], moved: [true, true, true] },
    { name: 'a row whose session id changed (a /clear): that index built afresh', swaps: [[1, r(12, 'z', undefined, 'j1')]], moved: [false, true, true] },
    { name: 'a row whose job changed: that index built afresh', swaps: [[0, r(11, 'a', 'j9')]], moved: [true, false, true] },
    { name: 'a tab whose work came back (no parked job now): that index built afresh', swaps: [[1, r(12, 'b')]], moved: [true, true, false] },
  ];
  for (const c of cases) {
    it(`${c.name}: the index of the new rows is the one a full build gives`, () => {
      const before = base.slice();
      const heldSessions = rowsBySession(before);
      const heldList = heldSessions.get('a');
      const heldJobs = rowsByJob(before);
      const heldParked = rowsByParkedJob(before);
      const after = before.slice();
      const swapped: [Row, Row][] = [];
      for (const [i, now] of c.swaps) {
        swapped.push([after[i] as Row, now]);
        after[i] = now;
      }
      moveRowIndexes(before, after, swapped);
      expect(plain(rowsBySession(after))).toEqual(fresh(after));
      expect(plain(rowsByJob(after))).toEqual(freshJobs(after));
      expect(plain(rowsByParkedJob(after))).toEqual(freshParked(after));
      // Moved: the same map serves the new rows; otherwise a new one was built for them.
      expect([rowsBySession(after) === heldSessions, rowsByJob(after) === heldJobs, rowsByParkedJob(after) === heldParked]).toEqual(c.moved);
      // A list handed out before keeps the rows it held.
      expect(heldList?.map((x) => x.n)).toEqual([1, 3]);
      // The rows before, asked again, are indexed as they are.
      expect(plain(rowsBySession(before))).toEqual(fresh(before));
    });
  }

  it('random wakes over a large fleet: the moved index always equals a full build', () => {
    const rand = prng(7).int;
    let rows = Array.from({ length: 300 }, (_, i) => r(i, `s${i % 120}`, i % 3 === 0 ? `j${i % 40}` : undefined, i % 3 === 1 ? `j${i % 40}` : undefined));
    rowsBySession(rows);
    rowsByJob(rows);
    rowsByParkedJob(rows);
    let n = 1000;
    for (let wake = 0; wake < 200; wake++) {
      const next = rows.slice();
      const swapped: [Row, Row][] = [];
      for (let k = rand(4); k >= 0; k--) {
        const i = rand(next.length);
        const old = next[i] as Row;
        // One wake in ten moves a row to another session: that wake builds afresh.
        // One in seven parks or brings back a tab's work: that index builds afresh.
        const parked = wake % 7 === 0 ? (old.row.parkedJobId ? undefined : `j${rand(40)}`) : old.row.parkedJobId;
        const now = r(n++, wake % 10 === 0 ? `s${rand(120)}` : old.row.sessionId, old.row.jobId, parked);
        swapped.push([old, now]);
        next[i] = now;
      }
      moveRowIndexes(rows, next, swapped);
      expect(plain(rowsBySession(next))).toEqual(fresh(next));
      expect(plain(rowsByJob(next))).toEqual(freshJobs(next));
      expect(plain(rowsByParkedJob(next))).toEqual(freshParked(next));
      rows = next;
    }
  });
});
