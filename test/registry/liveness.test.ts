// Liveness as Claude Code decides it: the table of docs/ownership.md#liveness,
// then the same answers from the real kernel (a live process, a zombie, a
// dead pid), and a Driver's liveness following its park.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidExists, procStartLstart, procStartTicks, readProcStat } from '../../src/proc';
import {
  liveRows,
  LivenessReader,
  mostAlive,
  recordedLiveness,
  STATE_RECHECK_MS,
  rowLiveness,
  rowsWithLiveness,
  withLiveness,
  type Liveness,
  type LiveRow,
  type ProcessFacts,
  type RecordedProcess,
} from '../../src/registry/liveness';
import { sidLivenessFromRows } from '../../src/registry/sid-liveness';
import type { RegistryRow } from '../../src/registry/schema';
import { waitFor } from '../helpers/env';

const HERE = 'linux:3d1219c7c4c5404aaa1f6d2a48adfda4:pid:[4026531836]';
const facts: ProcessFacts = {
  running: new Map([
    [100, { state: 'S', ppid: 1, startTicks: 28416 }],
    [200, null], // running, but no /proc stat (a system without /proc)
  ]),
  lstart: new Map([[100, 'Tue Dec 1 02:17:13 2026']]),
  domain: HERE,
};

describe('rowLiveness (pure)', () => {
  it.each<[string, Partial<RegistryRow>, Liveness]>([
    ['ticks as Claude Code writes them on Linux', { pid: 100, procStart: '28416' }, 'live'],
    ['other ticks: the pid was reused', { pid: 100, procStart: '28417' }, 'gone'],
    ['lstart text (macOS), the same instant', { pid: 100, procStart: 'Tue Dec  1 02:17:13 2026' }, 'live'],
    ['lstart text of another instant', { pid: 100, procStart: 'Tue Dec 1 02:17:14 2026' }, 'gone'],
    ['no procStart: the pid decides', { pid: 100 }, 'live'],
    ['a pid that is not running', { pid: 300, procStart: '28416' }, 'gone'],
    ['only a Windows procStartFt: cannot be checked here', { pid: 100, procStartFt: '133000000000000000' } as Partial<RegistryRow>, 'unknown'],
    ['another pid domain, even with a dead pid here', { pid: 300, procStart: '1', pidDomain: 'linux:other:pid:[1]' }, 'unknown'],
    ['this pid domain', { pid: 100, procStart: '28416', pidDomain: HERE }, 'live'],
    ['ticks but no /proc stat to compare with', { pid: 200, procStart: '28416' }, 'unknown'],
    ['text but no start time to compare with', { pid: 200, procStart: 'Tue Dec 1 02:17:13 2026' }, 'unknown'],
  ])('%s', (_name, row, want) => {
    expect(rowLiveness({ sessionId: 's', ...row } as RegistryRow, facts)).toBe(want);
  });

  it('an unreadable local pid domain takes every row as local', () => {
    expect(rowLiveness({ pid: 100, sessionId: 's', procStart: '28416', pidDomain: 'linux:x:pid:[1]' }, { ...facts, domain: null })).toBe('live');
  });

  it('mostAlive: live over unknown over gone', () => {
    expect(mostAlive([])).toBeNull();
    expect(mostAlive(['gone', 'unknown'])).toBe('unknown');
    expect(mostAlive(['gone', 'live', 'unknown'])).toBe('live');
    expect(mostAlive(['gone'])).toBe('gone');
  });
});

const TAB = '7b30aaa7-1111-4000-8000-000000000001';
const JOB = 'cad206e7-2222-4000-8000-000000000002';
const row = (pid: number, sessionId: string, liveness: Liveness, extra: Partial<RegistryRow> = {}): LiveRow =>
  withLiveness({ pid, sessionId, ...extra }, liveness);

describe('sidLivenessFromRows: a Driver follows its park', () => {
  it.each<[string, LiveRow[], Liveness | null]>([
    ['no row holds it', [row(1, JOB, 'live')], null],
    ['its own row is live', [row(1, TAB, 'live')], 'live'],
    ['its own row is gone, no park', [row(1, TAB, 'gone')], 'gone'],
    ['tab killed while its job works', [row(1, TAB, 'gone', { parkedJobId: 'cad206e7' }), row(2, JOB, 'live', { kind: 'bg', jobId: 'cad206e7' })], 'live'],
    ['tab and job both gone', [row(1, TAB, 'gone', { parkedJobId: 'cad206e7' }), row(2, JOB, 'gone', { kind: 'bg', jobId: 'cad206e7' })], 'gone'],
    ['tab gone, job of another pid domain', [row(1, TAB, 'gone', { parkedJobId: 'cad206e7' }), row(2, JOB, 'unknown', { kind: 'bg', jobId: 'cad206e7' })], 'unknown'],
    ['a stale row and a live row of the same id', [row(1, TAB, 'gone'), row(3, TAB, 'live')], 'live'],
    ['cannot be checked here', [row(1, TAB, 'unknown')], 'unknown'],
  ])('%s', (_name, rows, want) => {
    expect(sidLivenessFromRows(TAB, rows)).toBe(want);
  });
});

describe('recordedLiveness: what a task recorded, when no row holds its owner', () => {
  it.each<[string, RecordedProcess, LiveRow[], Liveness]>([
    ['the recorded process has exited', { sid: TAB, pid: 2 ** 22 + 7, procStart: '1' }, [], 'gone'],
    ['the tab was killed while parked; its job runs', { sid: TAB, pid: 2 ** 22 + 7, procStart: '1', jobId: 'cad206e7' }, [row(2, JOB, 'live', { kind: 'bg', jobId: 'cad206e7' })], 'live'],
    ['parked, and the job is gone too', { sid: TAB, jobId: 'cad206e7' }, [row(2, JOB, 'gone', { kind: 'bg', jobId: 'cad206e7' })], 'gone'],
    ['parked on a job of another pid domain', { sid: TAB, jobId: 'cad206e7' }, [row(2, JOB, 'unknown', { kind: 'bg', jobId: 'cad206e7' })], 'unknown'],
  ])('%s', async (_name, recorded, rows, want) => {
    expect((await recordedLiveness([recorded], rows)).get(TAB)).toBe(want);
  });
});

/**
 * A child that can be made a zombie: `sleep` under a shell. zombify() stops the
 * shell (a stopped parent never reaps) and kills the child. close() ends both.
 */
async function childOfShell(): Promise<{ pid: number; zombify(): Promise<void>; close(): void }> {
  const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (b: Buffer) => resolve(Number(String(b).trim()))));
  await waitFor(() => readProcStat(pid) !== null, 'the child');
  return {
    pid,
    async zombify() {
      process.kill(parent.pid as number, 'SIGSTOP');
      process.kill(pid, 'SIGKILL');
      await waitFor(() => readProcStat(pid)?.state === 'Z', 'the child to become a zombie', 5000);
    },
    close: () => parent.kill('SIGKILL'),
  };
}

describe('liveness from the real kernel', () => {
  it('a running process: its ticks and its lstart text are both live; other values are gone', async () => {
    const child = spawn('sleep', ['30']);
    try {
      const pid = child.pid as number;
      const ticks = String(procStartTicks(pid));
      const rows: RegistryRow[] = [
        { pid, sessionId: 'a', procStart: ticks },
        { pid, sessionId: 'b', procStart: procStartLstart(pid) as string },
        { pid, sessionId: 'c', procStart: String(Number(ticks) + 1) },
        { pid, sessionId: 'd', procStart: 'Mon Jan 1 00:00:00 2001' },
      ];
      expect((await rowsWithLiveness(rows)).map((r) => r.liveness)).toEqual(['live', 'live', 'gone', 'gone']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("the supervisor's reader: a zombie is gone once its state is read again (after STATE_RECHECK_MS), a reaped pid at once", async () => {
    const child = await childOfShell();
    try {
      const pid = child.pid;
      let now = 1_000_000;
      const reader = new LivenessReader(() => now);
      const entries = [{ row: { pid, sessionId: 'z', procStart: String(readProcStat(pid)?.startTicks) } }];
      expect((await reader.liveRows({ entries }))[0]?.liveness).toBe('live');
      await child.zombify();
      now += 1000;
      expect((await reader.liveRows({ entries }))[0]?.liveness).toBe('live'); // trusted a while: no stat read
      now += STATE_RECHECK_MS;
      expect(reader.goneAmong([pid])).toEqual([pid]);
      expect((await reader.liveRows({ entries }))[0]?.liveness).toBe('gone');
    } finally {
      child.close();
    }
  });

  it("the supervisor's poll reads at most its budget of states due again, in turn: a zombie past the budget is seen by a later poll", async () => {
    const child = await childOfShell();
    try {
      const zombie = child.pid;
      let now = 1_000_000;
      const reader = new LivenessReader(() => now, 2);
      const pids = [1, process.pid, process.ppid, zombie];
      const entries = pids.map((pid, i) => ({ row: { pid, sessionId: `s${i}`, procStart: String(readProcStat(pid)?.startTicks) } }));
      expect((await reader.liveRows({ entries })).map((r) => r.liveness)).toEqual(['live', 'live', 'live', 'live']);
      await child.zombify();
      now += STATE_RECHECK_MS;
      // Four states due, a budget of two: the zombie's is not read by this poll.
      expect(reader.goneAmong(pids)).toEqual([]);
      // The next poll reads the two left (the first two were read just now).
      expect(reader.goneAmong(pids)).toEqual([zombie]);
    } finally {
      child.close();
    }
  });

  it('a zombie is gone although kill(pid, 0) still succeeds', async () => {
    const child = await childOfShell();
    try {
      const zombie = child.pid;
      await child.zombify();
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(pidExists(zombie)).toBe(false);
      const ticks = String(readProcStat(zombie)?.startTicks);
      const [r] = await liveRows({ entries: [{ row: { pid: zombie, sessionId: 'z', procStart: ticks } }] });
      expect(r?.liveness).toBe('gone');
    } finally {
      child.close();
    }
  });
});
