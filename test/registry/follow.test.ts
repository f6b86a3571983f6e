import { describe, expect, it } from 'vitest';
import { follow, guessByCwd, MAX_HOPS, type StopReason } from '../../src/registry/follow';
import type { LiveRow } from '../../src/registry/liveness';
import type { RegistryRow } from '../../src/registry/schema';

const r = (row: Partial<RegistryRow> & { pid: number; sessionId: string }, alive = true): LiveRow => ({ row, alive, liveness: alive ? 'live' : 'gone' });

const TAB = '10e378ef-1111-4000-8000-000000000001';
const JOB = 'e9e4ae8e-2222-4000-8000-000000000002';
const JOB2 = 'aa11bb22-3333-4000-8000-000000000003';

interface Case {
  name: string;
  rows: LiveRow[];
  sid: string;
  attached: string;
  hops: number;
  stop: StopReason;
  pids: number[];
}

const cases: Case[] = [
  {
    name: 'a row that parks nothing is its own end',
    rows: [r({ pid: 1, sessionId: TAB, kind: 'interactive', status: 'busy' })],
    sid: TAB,
    attached: TAB,
    hops: 0,
    stop: 'no-park',
    pids: [1],
  },
  {
    name: 'walks parkedJobId to the row whose jobId matches',
    rows: [
      r({ pid: 18643, sessionId: TAB, kind: 'interactive', status: 'idle', parkedJobId: 'e9e4ae8e' }),
      r({ pid: 26106, sessionId: JOB, kind: 'bg', status: 'busy', jobId: 'e9e4ae8e' }),
      r({ pid: 3, sessionId: 'other', kind: 'bg', status: 'busy', jobId: 'ffff0000' }),
    ],
    sid: TAB,
    attached: JOB,
    hops: 1,
    stop: 'no-park',
    pids: [18643, 26106],
  },
  {
    name: 'matches by jobId, never by session id prefix',
    rows: [
      r({ pid: 1, sessionId: TAB, parkedJobId: 'e9e4ae8e' }),
      r({ pid: 2, sessionId: 'e9e4ae8e-decoy', kind: 'bg' }),
    ],
    sid: TAB,
    attached: TAB,
    hops: 0,
    stop: 'missing',
    pids: [1],
  },
  {
    name: 'a parked job with no row stops at the tab: missing',
    rows: [r({ pid: 1, sessionId: TAB, status: 'idle', parkedJobId: 'e9e4ae8e' })],
    sid: TAB,
    attached: TAB,
    hops: 0,
    stop: 'missing',
    pids: [1],
  },
  {
    name: 'no row for the sid: missing, empty chain',
    rows: [r({ pid: 1, sessionId: JOB, jobId: 'e9e4ae8e' })],
    sid: TAB,
    attached: TAB,
    hops: 0,
    stop: 'missing',
    pids: [],
  },
  {
    name: 'stale duplicate: the live row wins over a newer dead one',
    rows: [
      r({ pid: 10, sessionId: TAB, updatedAt: 9_000_000_000_000, parkedJobId: 'e9e4ae8e' }, false),
      r({ pid: 11, sessionId: TAB, updatedAt: 1_700_000_000_000 }, true),
      r({ pid: 12, sessionId: JOB, jobId: 'e9e4ae8e' }),
    ],
    sid: TAB,
    attached: TAB,
    hops: 0,
    stop: 'no-park',
    pids: [11],
  },
  {
    name: 'stale duplicate: among live rows the newest updatedAt wins (ISO and epoch ms compare)',
    rows: [
      r({ pid: 10, sessionId: TAB, updatedAt: '2025-01-01T00:00:00Z' }),
      r({ pid: 11, sessionId: TAB, updatedAt: Date.parse('2025-06-01T00:00:00Z'), parkedJobId: 'e9e4ae8e' }),
      r({ pid: 12, sessionId: JOB, jobId: 'e9e4ae8e' }),
    ],
    sid: TAB,
    attached: JOB,
    hops: 1,
    stop: 'no-park',
    pids: [11, 12],
  },
  {
    name: 'duplicate job rows: the live one is reached',
    rows: [
      r({ pid: 1, sessionId: TAB, parkedJobId: 'e9e4ae8e' }),
      r({ pid: 2, sessionId: 'e9e4ae8e-old', jobId: 'e9e4ae8e', updatedAt: 2e12 }, false),
      r({ pid: 3, sessionId: JOB, jobId: 'e9e4ae8e', updatedAt: 1e12 }),
    ],
    sid: TAB,
    attached: JOB,
    hops: 1,
    stop: 'no-park',
    pids: [1, 3],
  },
  {
    name: 'a cycle stops on the repeat',
    rows: [
      r({ pid: 1, sessionId: TAB, jobId: 'aaaa', parkedJobId: 'e9e4ae8e' }),
      r({ pid: 2, sessionId: JOB, jobId: 'e9e4ae8e', parkedJobId: 'aaaa' }),
    ],
    sid: TAB,
    attached: JOB,
    hops: 1,
    stop: 'repeat',
    pids: [1, 2],
  },
  {
    name: 'a row parked on itself is a repeat',
    rows: [r({ pid: 1, sessionId: JOB, jobId: 'e9e4ae8e', parkedJobId: 'e9e4ae8e' })],
    sid: JOB,
    attached: JOB,
    hops: 0,
    stop: 'repeat',
    pids: [1],
  },
  {
    name: 'a spare bg row is still reached by a park',
    rows: [
      r({ pid: 1, sessionId: TAB, parkedJobId: 'e9e4ae8e' }),
      r({ pid: 2, sessionId: JOB, kind: 'bg', spare: true, jobId: 'e9e4ae8e' }),
    ],
    sid: TAB,
    attached: JOB,
    hops: 1,
    stop: 'no-park',
    pids: [1, 2],
  },
  {
    name: 'two hops',
    rows: [
      r({ pid: 1, sessionId: TAB, parkedJobId: 'e9e4ae8e' }),
      r({ pid: 2, sessionId: JOB, jobId: 'e9e4ae8e', parkedJobId: 'aa11bb22' }),
      r({ pid: 3, sessionId: JOB2, jobId: 'aa11bb22' }),
    ],
    sid: TAB,
    attached: JOB2,
    hops: 2,
    stop: 'no-park',
    pids: [1, 2, 3],
  },
];

// A chain of six rows, each parked on the next: Follow stops after four hops.
const long = Array.from({ length: 6 }, (_, i) =>
  r({ pid: 100 + i, sessionId: `s${i}`, jobId: `j${i}`, parkedJobId: `j${i + 1}` }),
);
cases.push({ name: 'stops after four hops: limit', rows: long, sid: 's0', attached: 's4', hops: 4, stop: 'limit', pids: [100, 101, 102, 103, 104] });
// Exactly four hops ending on a row that parks nothing is a clean end.
const four = long.slice(0, 5).map((x, i) => (i === 4 ? r({ pid: 104, sessionId: 's4', jobId: 'j4' }) : x));
cases.push({ name: 'four hops to a row that parks nothing: no-park', rows: four, sid: 's0', attached: 's4', hops: 4, stop: 'no-park', pids: [100, 101, 102, 103, 104] });

describe('follow', () => {
  it.each(cases)('$name', (c) => {
    const f = follow(c.rows, c.sid);
    expect(f.base).toBe(c.sid);
    expect(f.attached).toBe(c.attached);
    expect(f.hops).toBe(c.hops);
    expect(f.stop).toBe(c.stop);
    expect(f.chain.map((l) => l.pid)).toEqual(c.pids);
  });

  it('limit is four', () => expect(MAX_HOPS).toBe(4));

  it('chain links carry exactly the printed fields, absent ones as null', () => {
    const f = follow(cases[1]!.rows, TAB);
    expect(f.chain).toEqual([
      { sessionId: TAB, pid: 18643, kind: 'interactive', status: 'idle', waitingFor: null, needs: null, tempo: null, intent: null, jobId: null, parkedJobId: 'e9e4ae8e', alive: true, liveness: 'live' },
      { sessionId: JOB, pid: 26106, kind: 'bg', status: 'busy', waitingFor: null, needs: null, tempo: null, intent: null, jobId: 'e9e4ae8e', parkedJobId: null, alive: true, liveness: 'live' },
    ]);
  });
});

describe('guessByCwd', () => {
  const rows = [
    r({ pid: 1, sessionId: 'spare', kind: 'bg', spare: true, cwd: '/w/app', updatedAt: 3e12 }),
    r({ pid: 2, sessionId: TAB, kind: 'interactive', cwd: '/w/app', updatedAt: 1e12, parkedJobId: 'e9e4ae8e' }),
    r({ pid: 3, sessionId: 'dead', kind: 'interactive', cwd: '/w/app', updatedAt: 2e12 }, false),
    r({ pid: 4, sessionId: JOB, kind: 'bg', jobId: 'e9e4ae8e', cwd: '/w/other' }),
  ];

  it('skips the spare row and prefers the live one', () => {
    expect(guessByCwd(rows, '/w/app/')?.row.sessionId).toBe(TAB);
  });

  it('a park from the guess still reaches the work', () => {
    const g = guessByCwd(rows, '/w/app')!;
    expect(follow(rows, g.row.sessionId).attached).toBe(JOB);
  });

  it('a directory only a spare points at gives no guess', () => {
    expect(guessByCwd([rows[0]!], '/w/app')).toBeNull();
  });
});
