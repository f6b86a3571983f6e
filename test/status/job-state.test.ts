// What a parked job needs, as Claude Code says it (docs/hop.md#the-job-state-file),
// on a real tmux server read through an attached client: a stand-in Driver
// parks its work on a job that writes <config>/jobs/<jobId>/state.json as
// Claude Code 2.1.333 does. The supervisor polls only every minute here, so
// what it shows within seconds came from its watch on the job's directory.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { STAND_IN } from '../helpers/paths';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;
let supervisor: RunningSupervisor;
let client: StatusClient;
let base = '';

const JOB = '44a236dc';
const AGENT = `${process.execPath} ${STAND_IN}`;
/** An option as the session sees it: its own, else the global one (the fleet's attention is global). */
const opt = async (session: string, name: string) => (await server.run(['show-options', '-qvA', '-t', `=${session}:`, name])).trim();
const type = async (text: string) => {
  await server.run(['send-keys', '-t', '=op-tj:', '-l', text]);
  await server.run(['send-keys', '-t', '=op-tj:', 'Enter']);
};
const fleetJson = async (args: string[]) => {
  const r = await runFleet([...args, '--json'], { env: fenv.env });
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout);
};
const stateFile = () => join(fenv.claudeDir, 'jobs', JOB, 'state.json');
const state = async () => JSON.parse(await readFile(stateFile(), 'utf8').catch(() => 'null'));

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  await server.tmux.chain([
    ['set-option', '-g', 'status-left', '[#{@fleet-hop}][#{@fleet-agent}][#{@fleet-attention}]'],
    ['set-option', '-g', 'status-left-length', '180'],
    ['set-option', '-g', 'status-right', ''],
    ['set-option', '-g', 'display-time', '4000'],
    // A poll once a minute: a change seen sooner came from a file watch.
    ['set-option', '-g', '@fleet-interval', '60'],
  ]);
  supervisor = await startSupervisor(server, fenv);
  expect((await runFleet(['spawn', 'tj', '--cmd', AGENT], { env: fenv.env })).exitCode).toBe(0);
  base = await waitFor(async () => opt('op-tj', '@claude_session_id'), 'the stamp of op-tj', 15_000);
  client = await attachStatusClient(server, 'op-tj', 200);
});

afterAll(async () => {
  await client?.kill();
  await supervisor?.stop().catch(() => undefined);
  await server?.kill();
  await fenv?.cleanup();
});

describe('a parked job\'s state file', () => {
  it('a job whose row has no status yet: its state file\'s need shows in the Driver\'s session, counted and listed', async () => {
    await type('slowly read the disk');
    await client.waitForStatus('[ ⚙ busy ]', 15_000);
    await type(`/park ${JOB} none`);
    await client.waitForStatus(`[ ↪ ${base.slice(0, 4)} → ${JOB.slice(0, 4)} ][ ! send a prompt to start ][ ! 1 waiting ]`, 15_000);
    expect(await state()).toMatchObject({ tempo: 'blocked', needs: 'send a prompt to start', intent: 'slowly read the disk' });
    const attention = await fleetJson(['attention']);
    expect(attention.waiting).toEqual([expect.objectContaining({ who: 'tj', what: 'send a prompt to start', target: { kind: 'job', jobId: JOB, parkedBy: 'op-tj' } })]);
  });

  it('the job at work: busy, and the wait is gone everywhere', async () => {
    await type('/job busy');
    await type('/job-state active');
    await client.waitForStatus('[ ⚙ busy ][]', 15_000);
    expect((await fleetJson(['attention'])).waiting).toEqual([]);
    const tasks = await fleetJson(['tasks']);
    expect(tasks.tasks[0]).toMatchObject({ slug: 'tj', hop: { jobId: JOB, intent: 'slowly read the disk' }, agent: { status: 'busy', tempo: 'active', needs: null, waits: false } });
    const table = await runFleet(['tasks'], { env: fenv.env });
    expect(table.stdout).toContain(`${base.slice(0, 4)} → ${JOB.slice(0, 4)} · slowly read the disk`);
  });

  it('only the state file changes (the row still says busy): the watch wakes the supervisor, which shows and toasts Claude Code\'s sentence', async () => {
    const row = await waitFor(async () => (await runFleet(['follow', base, '--json'], { env: fenv.env })).stdout, 'follow', 5000);
    expect(JSON.parse(row).chain[1]).toMatchObject({ status: 'busy', tempo: 'active' });
    await type('/job-state blocked approve Bash: ls -la /');
    await client.waitForStatus('fleet: tj waits: approve Bash: ls -la /', 15_000);
    await client.waitForStatus('[ ! approve Bash: ls -la / ][ ! 1 waiting ]', 15_000);
    expect(await opt('keeper', '@fleet-attention')).toContain('! 1 waiting');
    const follow = JSON.parse((await runFleet(['follow', base, '--json'], { env: fenv.env })).stdout);
    expect(follow.chain[1]).toMatchObject({ status: 'busy', tempo: 'blocked', needs: 'approve Bash: ls -la /', intent: 'slowly read the disk' });
  });

  it('an API error while the row says idle: still a wait, in Claude Code\'s words', async () => {
    await type('/job idle');
    await type('/job-state blocked API unavailable — retry · API Error: 500');
    // The status line cuts a long sentence at 40 characters.
    await client.waitForStatus('[ ! API unavailable — retry · API Error: 500 ]', 15_000);
    const attention = await fleetJson(['attention']);
    expect(attention.waiting).toEqual([expect.objectContaining({ who: 'tj', what: 'API unavailable — retry · API Error: 500' })]);
  });

  it('the job done (idle, nothing needed): idle, and no one waits', async () => {
    await type('/job-state idle');
    await client.waitForStatus('[ · idle ][]', 15_000);
    expect((await fleetJson(['attention'])).waiting).toEqual([]);
  });
});
