// Big registry rows held by a long-lived reader: 400 rows of 255 KiB (each
// under the 256 KiB cap) drove the supervisor to 176 MB; the budget is 80 MB.
// A row is kept as the fields tmux-fleet reads, each string cut at a length no
// real value reaches, and at most MAX_KEPT_ROWS rows are kept (the newest).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { link, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedRegistryReader, MAX_KEPT_CHARS, MAX_KEPT_ROWS, readRegistry } from '../../src/registry/reader';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { cleanEnv } from '../helpers/hermetic';
import { lastTickLogged, ticksLogged } from '../helpers/supervisor';
import { startServer, type TestServer } from '../helpers/tmux-server';

let fe: FleetEnv;
beforeEach(async () => {
  fe = await makeFleetEnv();
});
afterEach(async () => {
  await fe.cleanup();
});

const SID = 'abcd0000-1111-4111-8111-111111111111';
/** A row just under the 256 KiB cap: the fields of a real row, a long `waitingFor`, and 250 KiB in a key nobody reads. */
const bigRow = (pid: number) => ({ pid, sessionId: SID, kind: 'interactive', status: 'waiting', waitingFor: 'w'.repeat(4000), cwd: '/work', blob: 'x'.repeat(250 * 1024), updatedAt: Date.now() });

describe('what a reader keeps of a row', () => {
  it('only the fields tmux-fleet reads, long strings cut', async () => {
    await writeFile(join(fe.registry, '4000001.json'), JSON.stringify(bigRow(4000001)));
    for (const snap of [await readRegistry(fe.registry), await new CachedRegistryReader(fe.registry).read()]) {
      expect(snap.entries).toHaveLength(1);
      const row = snap.entries[0]!.row as Record<string, unknown>;
      expect(row.blob).toBeUndefined();
      expect(row).toMatchObject({ pid: 4000001, sessionId: SID, kind: 'interactive', status: 'waiting', cwd: '/work' });
      expect(row.waitingFor).toBe(`${'w'.repeat(MAX_KEPT_CHARS - 1)}…`);
      expect(JSON.stringify(row).length).toBeLessThan(MAX_KEPT_CHARS + 500);
    }
  });

  it('a session id longer than any real one makes the row malformed (never cut: it is an identity)', async () => {
    await writeFile(join(fe.registry, '4000002.json'), JSON.stringify({ pid: 4000002, sessionId: 's'.repeat(MAX_KEPT_CHARS + 1) }));
    const snap = await readRegistry(fe.registry);
    expect([snap.entries.length, snap.malformed]).toEqual([0, 1]);
  });

  it(`at most ${MAX_KEPT_ROWS} rows, the newest; the rest counted, and doctor says so`, async () => {
    const extra = 20;
    const now = Date.now() / 1000;
    for (let i = 0; i < MAX_KEPT_ROWS + extra; i++) {
      const pid = 4_100_000 + i;
      const file = join(fe.registry, `${pid}.json`);
      await writeFile(file, JSON.stringify({ pid, sessionId: `${SID}-${i}` }));
      // The first `extra` rows are the oldest.
      await utimes(file, now - 10_000 + i, now - 10_000 + i);
    }
    for (const snap of [await readRegistry(fe.registry), await new CachedRegistryReader(fe.registry).read()]) {
      expect(snap.entries).toHaveLength(MAX_KEPT_ROWS);
      expect(snap.overCap).toBe(extra);
      const pids = new Set(snap.entries.map((e) => e.row.pid));
      expect(pids.has(4_100_000)).toBe(false);
      expect(pids.has(4_100_000 + MAX_KEPT_ROWS + extra - 1)).toBe(true);
    }
    const doctor = await runFleet(['doctor'], { env: fe.env });
    expect(doctor.stdout).toContain(`${extra} not read (over the ${MAX_KEPT_ROWS}-row cap)`);
  });
});

describe('over the cap, the rows that matter are kept first', () => {
  it('the rows of running processes, then the rows asked for, then the newest; a changed row past the cap chooses again', async () => {
    const extra = 20;
    const now = Date.now() / 1000;
    const write = async (pid: number, age: number) => {
      const file = join(fe.registry, `${pid}.json`);
      await writeFile(file, JSON.stringify({ pid, sessionId: `${SID}-${pid}` }));
      await utimes(file, now - age, now - age);
    };
    // The two oldest rows: one of a running process (this one), one a task needs.
    await write(process.pid, 50_000);
    await write(4_099_999, 40_000);
    for (let i = 0; i < MAX_KEPT_ROWS + extra - 2; i++) await write(4_100_000 + i, 10_000 - i);
    const reader = new CachedRegistryReader(fe.registry);
    reader.keepFirst(new Set(['4099999.json']));
    const snap = await reader.read();
    const pids = new Set(snap.entries.map((e) => e.row.pid));
    expect(snap.entries).toHaveLength(MAX_KEPT_ROWS);
    expect(snap.overCap).toBe(extra);
    expect(pids.has(process.pid)).toBe(true);
    expect(pids.has(4_099_999)).toBe(true);
    // The newest kept, the oldest of the rest left out.
    expect(pids.has(4_100_000 + MAX_KEPT_ROWS + extra - 3)).toBe(true);
    expect(pids.has(4_100_000)).toBe(false);
    // A row left out is rewritten (now the newest): the reader chooses again and keeps it, without reading past the cap.
    const read = reader.filesRead;
    await write(4_100_000, 0);
    const again = await reader.read(new Set(['4100000.json']));
    expect(again.entries).toHaveLength(MAX_KEPT_ROWS);
    expect(again.entries.some((e) => e.row.pid === 4_100_000)).toBe(true);
    expect(reader.filesRead - read).toBe(1);
    // A row left out rewritten as old as it was (a dead process's: it would not be kept): not read, and no choosing again.
    const before = reader.filesRead;
    await write(4_100_001, 10_000 - 1);
    const still = await reader.read(new Set(['4100001.json']));
    expect(reader.filesRead).toBe(before);
    expect(reader.lastChanges).toEqual([]);
    expect(still.entries.some((e) => e.row.pid === 4_100_001)).toBe(false);
  });
});

describe('the supervisor with 400 rows of 255 KiB', () => {
  let server: TestServer;
  let sup: ChildProcess | undefined;
  afterEach(async () => {
    sup?.kill('SIGTERM');
    await server?.kill();
  });

  it('stays under its 80 MB budget', async () => {
    server = await startServer();
    // One file, 400 names (hard links): 100 MB of rows to read, 255 KiB of disk.
    const first = join(fe.registry, '4200000.json');
    // A live process (this one), so that the session's agent segment shows the row.
    await writeFile(first, JSON.stringify(bigRow(process.pid)));
    for (let i = 1; i < 400; i++) await link(first, join(fe.registry, `${4200000 + i}.json`));
    await server.newSession('s1');
    await server.run(['set-option', '-t', '=s1:', '@claude_session_id', SID]);
    // TMUX_FLEET_DEBUG=1: it logs each tick, which tells when the wake for the new row has been done.
    sup = spawn(process.execPath, [FLEET_BIN, 'supervise'], { env: { ...cleanEnv(), ...fe.env, TMUX_FLEET_SOCKET: server.name, TMUX_FLEET_DEBUG: '1' }, stdio: 'ignore' });
    const pid = sup.pid as number;
    /** The largest resident size the process has had (VmHWM, the kernel's high-water mark), in MB. */
    const peak = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    // The first render has read every row: the agent segment shows the row's wait.
    await waitFor(async () => (await server.run(['show-options', '-qv', '-t', '=s1:', '@fleet-agent'])).includes('waiting'), 'the first render', 30_000);
    // A wake for a new row, then the peak over the whole run once that wake's tick has read it.
    const before = lastTickLogged(fe.home, pid);
    await writeFile(join(fe.registry, '4300000.json'), JSON.stringify({ pid: 4300000, sessionId: 'other' }));
    await waitFor(() => ticksLogged(fe.home, pid).some((t) => t.tick > before && /: [1-9]\d* rows read/.test(t.line)), 'the tick that reads the new row', 30_000);
    const max = peak();
    console.log(`supervisor with 400 rows of 255 KiB: peak VmHWM ${max.toFixed(1)} MB`);
    expect(max).toBeLessThan(80);
  });
});
