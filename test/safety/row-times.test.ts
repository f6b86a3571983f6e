// A registry row's times are data: `"startedAt": 9e15` or a 23-digit string is
// past what a Date can hold, and once made the dashboard's `Invalid time value`
// (prefix F dead while the row exists). Every time read from a row is checked
// where it is read (timeMs); a bad one is unknown (`-`), never thrown.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeMs } from '../../src/registry/time';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { exportFleetEnv } from '../helpers/supervisor';
import { startServer, type TestServer } from '../helpers/tmux-server';

describe('timeMs', () => {
  const ms = Date.UTC(2026, 0, 2, 3, 4, 5);
  it.each<[string, string | number | undefined, number]>([
    ['epoch milliseconds', ms, ms],
    ['epoch seconds', ms / 1000, ms],
    ['ISO-8601', new Date(ms).toISOString(), ms],
    ['digits as a string', String(ms), ms],
    ['past what a Date holds', 9e15, -Infinity],
    ['a 23-digit string', '99999999999999999999999', -Infinity],
    ['negative', -1e15, -Infinity],
    ['Infinity', Number.POSITIVE_INFINITY, -Infinity],
    ['NaN', Number.NaN, -Infinity],
    ['a string past the range', '+275760-09-13T00:00:00.001Z', -Infinity],
    ['not a time', 'yesterday', -Infinity],
    ['empty', '', -Infinity],
    ['absent', undefined, -Infinity],
  ])('%s', (_what, input, want) => {
    const got = timeMs(input);
    expect(got).toBe(want);
    // Whatever it returns can be drawn, or is unknown.
    if (Number.isFinite(got)) expect(() => new Date(got).toISOString()).not.toThrow();
  });
});

describe('a row with impossible times in the dashboard and attention', () => {
  let server: TestServer;
  let fenv: FleetEnv;
  const sleepers: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startServer();
    fenv = await makeFleetEnv(server.name);
    await exportFleetEnv(server, fenv);
    const bad: Record<string, unknown>[] = [
      { startedAt: 9e15, statusUpdatedAt: 9e15, status: 'waiting', waitingFor: 'approve Bash' },
      { startedAt: '99999999999999999999999', updatedAt: '99999999999999999999999', status: 'waiting', waitingFor: 'dialog open' },
    ];
    for (const [i, over] of bad.entries()) {
      const p = spawn('sleep', ['600'], { stdio: 'ignore' });
      sleepers.push(p);
      const job = `0000000${i}`;
      const row = { pid: p.pid, sessionId: `${job}-1111-4111-8111-111111111111`, kind: 'bg', jobId: job, cwd: '/work', ...over };
      await writeFile(join(fenv.registry, `${p.pid}.json`), JSON.stringify(row));
    }
  });

  afterAll(async () => {
    await server?.kill();
    for (const p of sleepers) p.kill();
    await fenv?.cleanup();
  });

  it('attention lists both waits, in JSON with an unknown since', async () => {
    const r = await runFleet(['attention', '--json'], { env: fenv.env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const waiting = (JSON.parse(r.stdout) as { waiting: { since: string | null }[] }).waiting;
    expect(waiting).toHaveLength(2);
    expect(waiting.map((w) => w.since)).toEqual([null, null]);
  });

  it('the dashboard draws both rows, their age unknown, and keeps running', async () => {
    await server.newSession('dash', [process.execPath, FLEET_BIN, 'dashboard']);
    const screen = await waitFor(async () => {
      const s = await server.run(['capture-pane', '-p', '-t', '=dash:']).catch(() => '');
      return s.includes('job 00000001') && s.includes('job 00000000') ? s : null;
    }, 'dashboard drawn', 15_000);
    expect(screen).not.toContain('Invalid time value');
    const rows = (screen as string).split('\n').filter((l) => /job 0000000\d\s/.test(l) && l.includes('/work'));
    expect(rows).toHaveLength(2);
    for (const line of rows) expect(line).toMatch(/\s-\s+\/work/);
    expect((await server.run(['list-panes', '-t', '=dash:', '-F', '#{pane_dead}'])).trim()).toBe('0');
  });
});
