import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dir as tmpDir, type DirectoryResult } from 'tmp-promise';
import { procStartLstart } from '../../src/proc';
import { liveRows, rowsWithLiveness } from '../../src/registry/liveness';
import { sessionLiveness } from '../../src/registry/sid-liveness';
import { MAX_ROW_BYTES, readRegistry } from '../../src/registry/reader';

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} blocked for ${ms} ms`)), ms))]);

const TAB = {
  pid: 18643,
  sessionId: '10e378ef-5b0f-4c41-9d3c-7b0a1c2d3e4f',
  kind: 'interactive',
  status: 'idle',
  parkedJobId: 'e9e4ae8e',
  entrypoint: 'cli',
  futureField: { nested: [1, 2] },
};
const JOB = { pid: 26106, sessionId: 'e9e4ae8e-0c1d-4e2f-8a9b-0123456789ab', kind: 'bg', status: 'busy', jobId: 'e9e4ae8e' };

let d: DirectoryResult;
let sleeper: ChildProcess;
beforeAll(async () => {
  d = await tmpDir({ unsafeCleanup: true, prefix: 'fleet-reg-' });
  sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
});
afterAll(async () => {
  sleeper.kill();
  await d.cleanup();
});

async function fresh(name: string): Promise<string> {
  const dir = join(d.path, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

describe('readRegistry', () => {
  it('parses the captured row shapes and keeps the fields tmux-fleet reads (a key it does not read is not kept)', async () => {
    const dir = await fresh('shapes');
    await writeFile(join(dir, '18643.json'), JSON.stringify(TAB));
    await writeFile(join(dir, '26106.json'), JSON.stringify(JOB));
    const snap = await readRegistry(dir);
    expect(snap.readable).toBe(true);
    expect(snap.malformed).toBe(0);
    const rows = snap.entries.map((e) => e.row).sort((a, b) => a.pid - b.pid);
    const { entrypoint: _e, futureField: _f, ...read } = TAB;
    expect(rows[0]).toEqual(read);
    expect(rows[1]).toEqual(JOB);
  });

  it('opens only <digits>.json; a *.key FIFO beside the rows does not block it', async () => {
    const dir = await fresh('fifo');
    await writeFile(join(dir, '26106.json'), JSON.stringify(JOB));
    execFileSync('mkfifo', [join(dir, '26106.key')]);
    // A FIFO that even carries a row name is never read from (it would block a plain open).
    execFileSync('mkfifo', [join(dir, '777.json')]);
    await writeFile(join(dir, 'notes.json'), '{"pid":1,"sessionId":"x"}');
    await writeFile(join(dir, '12.json.tmp'), '{');
    const snap = await withTimeout(readRegistry(dir), 3000, 'readRegistry');
    expect(snap.entries.map((e) => e.row.sessionId)).toEqual([JOB.sessionId]);
    expect(snap.malformed).toBe(1);
  });

  it('skips and counts rows that are invalid, not JSON, or over the cap', async () => {
    const dir = await fresh('bad');
    await writeFile(join(dir, '1.json'), '{"pid":"one","sessionId":"x"}');
    await writeFile(join(dir, '2.json'), 'not json');
    await writeFile(join(dir, '3.json'), JSON.stringify({ ...JOB, pad: 'x'.repeat(MAX_ROW_BYTES) }));
    await writeFile(join(dir, '4.json'), JSON.stringify(JOB));
    const snap = await readRegistry(dir, { retryDelayMs: 1 });
    expect(snap.entries).toHaveLength(1);
    expect(snap.malformed).toBe(3);
  });

  it('a torn file is read once, then complete on the retry', async () => {
    const dir = await fresh('torn');
    const file = join(dir, '26106.json');
    const whole = JSON.stringify(JOB);
    await writeFile(file, whole.slice(0, 20));
    const retried: string[] = [];
    const snap = await readRegistry(dir, {
      retryDelayMs: 500,
      // The writer finishes 20 ms into the retry window.
      onRetry: (f) => {
        retried.push(f);
        setTimeout(() => void writeFile(file, whole), 20);
      },
    });
    expect(retried).toEqual([file]);
    expect(snap.malformed).toBe(0);
    expect(snap.entries.map((e) => e.row)).toEqual([JOB]);
  });

  it('a file still torn after the retry is skipped as malformed', async () => {
    const dir = await fresh('torn2');
    await writeFile(join(dir, '5.json'), '{"pid":5,');
    const snap = await readRegistry(dir, { retryDelayMs: 1 });
    expect(snap).toMatchObject({ readable: true, entries: [], malformed: 1 });
  });

  it('a missing directory is an empty registry; a file in its place is unreadable', async () => {
    expect(await readRegistry(join(d.path, 'nope'))).toMatchObject({ readable: true, entries: [] });
    const f = join(d.path, 'plainfile');
    await writeFile(f, '');
    expect((await readRegistry(f)).readable).toBe(false);
  });
});

describe('liveness', () => {
  it('alive needs the pid and, where given, the same procStart', async () => {
    const pid = sleeper.pid!;
    const start = procStartLstart(pid)!;
    expect(start).toMatch(/^\w{3} \w{3} \d{1,2} \d\d:\d\d:\d\d \d{4}$/);
    // ps prints the day padded: the comparison collapses spaces.
    const padded = start.replace(/ (\d) /, '  $1 ');
    const rows = [
      { pid, sessionId: 'a', procStart: padded },
      { pid, sessionId: 'b', procStart: 'Mon Jan 1 00:00:00 2001' },
      { pid, sessionId: 'c' },
      { pid: 2 ** 22 + 12345, sessionId: 'd' },
    ];
    expect((await rowsWithLiveness(rows)).map((r) => r.liveness)).toEqual(['live', 'gone', 'live', 'gone']);
  });

  it('agrees with ps -o lstart= (TZ=UTC, LC_ALL=C)', () => {
    const pid = sleeper.pid!;
    const ps = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' } })
      .toString()
      .trim()
      .replace(/\s+/g, ' ');
    expect(procStartLstart(pid)).toBe(ps);
  });

  it('session liveness: a reused pid (procStart differs) is gone', async () => {
    const pid = sleeper.pid!;
    const snap = { readable: true, entries: [{ row: { pid, sessionId: 's1', procStart: 'Mon Jan 1 00:00:00 2001' } }] };
    expect(await sessionLiveness('s1', snap, async () => ({ carried: true, processes: null }))).toBe('gone');
    const live = { readable: true, entries: [{ row: { pid, sessionId: 's1', procStart: procStartLstart(pid)! } }] };
    expect(await sessionLiveness('s1', live, async () => ({ carried: false, processes: null }))).toBe('live');
    expect((await liveRows(live)).map((r) => r.alive)).toEqual([true]);
    expect(await sessionLiveness('s1', { readable: false, entries: [] }, async () => ({ carried: true, processes: null }))).toBe('unknown');
  });
});
