// On a real tmux server: a stand-in tab parks its work onto a stand-in job and
// takes it back; `tmux-fleet follow --watch` reports each hop and writes
// nothing; the supervisor, the one writer of @fleet-hop and of toasts, keeps
// the attached client's status line true.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

const TAB = '10e378ef-5b0f-4c41-9d3c-7b0a1c2d3e4f';

let server: TestServer;
let fenv: FleetEnv;
let client: StatusClient | null = null;
const startWatcher = () =>
  execa(process.execPath, [FLEET_BIN, 'follow', '--watch'], {
    env: { ...process.env, TMUX: undefined, TMUX_PANE: undefined, ...fenv.env },
    extendEnv: false,
    reject: false,
  });
// Its own type, inferred once: relating it to the default ResultPromise costs tsc seconds.
let watcher: ReturnType<typeof startWatcher> | null = null;
let supervisor: RunningSupervisor | null = null;
let watchOut = '';

async function rows(): Promise<Record<string, unknown>[]> {
  const names = (await readdir(fenv.registry)).filter((n) => /^\d+\.json$/.test(n));
  const out: Record<string, unknown>[] = [];
  for (const n of names) {
    try {
      out.push(JSON.parse(await readFile(join(fenv.registry, n), 'utf8')));
    } catch {
      /* mid-write */
    }
  }
  return out;
}

const type = (text: string) => server.run(['send-keys', '-t', '=op-tab:', '-l', text]).then(() => server.run(['send-keys', '-t', '=op-tab:', 'Enter']));

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await server.run(['set-option', '-g', 'status-right', '[#{@fleet-hop}]']);
  await server.run(['set-option', '-g', 'status-right-length', '60']);
  await server.run(['set-option', '-g', 'display-time', '2500']);
  await server.newSession('op-tab', [process.execPath, STAND_IN], { ...fenv.env, STAND_IN_SID: TAB, STAND_IN_NO_STAMP: '1' });
  await waitFor(async () => (await rows()).some((r) => r.sessionId === TAB), 'the tab row');
  // The stamp the SessionStart hook would set (the stamp command is tested on its own).
  await server.run(['set-option', '-t', '=op-tab:', '@claude_session_id', TAB]);
});

afterAll(async () => {
  watcher?.kill();
  await supervisor?.stop();
  await client?.kill();
  await server?.kill();
  await fenv?.cleanup();
});

describe('follow --watch on a real server', () => {
  it('follows a park to the job and back: follow --watch reports, the supervisor shows and toasts', async () => {
    watcher = startWatcher();
    watcher.stdout?.on('data', (b: Buffer) => (watchOut += b.toString()));
    await waitFor(() => watchOut.includes('op-tab: 10e378ef, busy'), 'the first follow line', 15_000);

    client = await attachStatusClient(server, 'op-tab');
    await client.waitForStatus('[]');

    // follow --watch alone reports the park and writes nothing.
    await type('/park e9e4ae8e busy');
    await waitFor(() => watchOut.includes('op-tab: 10e3 parked its work on background job e9e4ae8e, following'), 'the park reported', 8000);
    expect((await server.tmux.tryRun(['show-options', '-v', '-t', '=op-tab:', '@fleet-hop'])).stdout).toBe('');

    // The supervisor shows it.
    supervisor = await startSupervisor(server, fenv);
    // The default hop badge: its icon and the chain, in its style (scripts/option-defaults.json).
    await client.waitForStatus('[ ↪ 10e3 → e9e4 ]', 8000);
    expect(await server.run(['show-options', '-v', '-t', '=op-tab:', '@fleet-hop'])).toMatch(/↪ 10e3 → e9e4/);

    // follow (one shot) agrees, with the exact JSON keys.
    const j = await runFleet(['follow', TAB, '--json'], { env: fenv.env });
    expect(j.exitCode).toBe(0);
    const parsed = JSON.parse(j.stdout);
    expect(Object.keys(parsed)).toEqual(['base', 'attached', 'hops', 'stop', 'chain']);
    expect(parsed).toMatchObject({ base: TAB, hops: 1, stop: 'no-park' });
    expect(parsed.attached).toMatch(/^e9e4ae8e-/);
    expect(parsed.chain.map((l: { kind: string; alive: boolean; liveness: string }) => [l.kind, l.alive, l.liveness])).toEqual([
      ['interactive', true, 'live'],
      ['bg', true, 'live'],
    ]);
    expect(Object.keys(parsed.chain[0])).toEqual(['sessionId', 'pid', 'kind', 'status', 'waitingFor', 'needs', 'tempo', 'intent', 'jobId', 'parkedJobId', 'alive', 'liveness']);
    const h = await runFleet(['follow', TAB], { env: fenv.env });
    expect(h.stdout).toBe('10e378ef → e9e4ae8e (parked on job e9e4ae8e), busy');

    // The job's permission wait shows (the attached row, not the idle tab).
    await type('/job waiting permission prompt');
    await waitFor(async () => (await runFleet(['follow', TAB], { env: fenv.env })).stdout.endsWith(', waiting: permission prompt'), 'the job waiting');
    // Without a sid: the stamp of the caller's own session ($TMUX_PANE).
    const pane = (await server.run(['display-message', '-p', '-t', '=op-tab:', '#{pane_id}'])).trim();
    const own = await runFleet(['follow', '--json'], { env: { ...fenv.env, TMUX_PANE: pane } });
    expect(JSON.parse(own.stdout)).toMatchObject({ base: TAB, hops: 1 });
    expect((await runFleet(['follow'], { env: fenv.env })).exitCode).toBe(2);

    await type('/unpark');
    await client.waitForStatus('fleet: work came back to 10e3', 8000);
    await client.waitForStatus('[]', 8000);
    expect(watchOut).toContain('op-tab: work came back to 10e3');
    expect((await server.tmux.tryRun(['show-options', '-v', '-t', '=op-tab:', '@fleet-hop'])).stdout).toBe('');

    // The loop ends when its server goes away.
    await supervisor.stop();
    supervisor = null;
    await client.kill();
    client = null;
    await server.kill();
    // Bounded: a watch opened after the loop stopped would keep the process alive (src/status/wakes.ts: stopped).
    const done = await Promise.race([
      watcher,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`follow --watch still running 15 s after its server went away; it printed:\n${watchOut}`)), 15_000)),
    ]);
    expect(done.exitCode).toBe(0);
    watcher = null;
  });
});
