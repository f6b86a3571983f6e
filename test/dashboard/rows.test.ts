// The dashboard driven with send-keys on a real server, read through a real
// attached client: it lists the tasks, j moves, Enter switches the client.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardLines, type DashboardRow } from '../../src/dashboard/rows';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { exportFleetEnv } from '../helpers/supervisor';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

describe('dashboard layout', () => {
  const row = (over: Partial<DashboardRow> = {}): DashboardRow => ({
    kind: 'task',
    slug: 'fix-login-page',
    jobId: null,
    parkedBy: null,
    ownerGone: false,
    attention: false,
    since: 0,
    reason: '',
    dir: '~/src/app',
    session: 'op-fix-login-page',
    task: 'fix-login-page',
    owner: '10e378ef',
    verdict: '0 owner',
    hop: '10e3 → e9e4',
    agent: 'waiting: approve Bash(rm -rf node_modules)',
    age: '3h',
    ...over,
  });
  it.each([80, 100, 160])('fits %i columns and keeps every column title', (width) => {
    const { header, lines } = dashboardLines([row(), row({ task: 'x'.repeat(70), agent: 'busy' })], width);
    for (const l of [header, ...lines]) expect([...l].length).toBeLessThanOrEqual(width);
    for (const title of ['TASK', 'SESSION', 'OWNER', 'VERDICT', 'HOP', 'AGENT', 'AGE']) expect(header).toContain(title);
    // The directory only where it has room to say something.
    expect(header).not.toContain('DIR');
    if (width === 160) expect(dashboardLines([row()], width).lines[0]).toMatch(/ ~\/src\/app$/);
    expect(lines[0]).toContain('10e3 → e9e4');
    expect(lines[1]).toContain('…');
  });

  it.each([80, 200])('a need as long as an API error\'s gives way before the job\'s id (%i columns; the bottom line has it whole)', (width) => {
    const need = `API unavailable — retry · API Error: 500 ${'a server-side issue, usually temporary '.repeat(5)}`;
    const { lines } = dashboardLines([row({ kind: 'job', task: 'job 1a033346 · api error: read the disk', session: null, agent: need })], width);
    expect(lines[0]).toMatch(/^ {2}job 1a033346/);
    expect(lines[0]).toContain(width >= 200 ? 'API unavailable — retry' : 'API');
    expect([...lines[0]!].length).toBeLessThanOrEqual(width);
  });

  it('gives the agent state its whole width at 80 columns: names shrink first', () => {
    const { lines } = dashboardLines([row({ agent: 'waiting: approve Bash', session: 'review-fix-login-page' })], 80);
    expect(lines[0]).toContain('waiting: approve Bash');
    expect(lines[0]).toMatch(/ review-\S*… /);
  });
});

describe('dashboard on a real server', () => {
  let server: TestServer;
  let fenv: FleetEnv;
  let client: StatusClient;

  beforeAll(async () => {
    server = await startServer();
    fenv = await makeFleetEnv(server.name);
    await exportFleetEnv(server, fenv);
    for (const slug of ['aaa', 'bbb']) {
      const accept = slug === 'aaa' ? ['--accept', 'tests pass', '--accept', 'docs updated'] : [];
      const r = await runFleet(['spawn', slug, '--cmd', `${process.execPath} ${STAND_IN}`, ...accept], { env: fenv.env });
      expect(r.exitCode).toBe(0);
    }
    await waitFor(async () => (await runFleet(['tasks', '--json'], { env: fenv.env })).stdout.split('"verdict":0').length === 3, 'both Drivers stamped', 15_000);
    await server.newSession('dash', [process.execPath, FLEET_BIN, 'dashboard']);
    client = await attachStatusClient(server, 'dash', 80);
  });

  afterAll(async () => {
    await client?.kill();
    await server?.kill();
    await fenv?.cleanup();
  });

  it('lists the tasks with their verdicts at 80 columns', async () => {
    const screen = await client.waitForStatus(/aaa[\s\S]*bbb/, 15_000, true);
    expect(screen).toMatch(/TASK\s+SESSION\s+OWNER\s+VERDICT\s+HOP\s+AGENT\s+AGE\s+REPO\s+DIR/);
    expect(screen).toMatch(/aaa\s+op-aaa\s+[0-9a-f]{8}\s+0 owner\s+-\s+busy\s+\d+s/);
    expect(screen).toMatch(/bbb\s+op-bbb\s+[0-9a-f]{8}\s+0 owner\s+-\s+busy\s+\d+s/);
    for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('agrees with `tasks` (table and --json) on the same fleet', async () => {
    const table = await runFleet(['tasks'], { env: fenv.env });
    expect(table.exitCode).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TASK\s+OWNER\s+VERDICT\s+LIVE\s+SESSION\s+HOP\s+AGENT\s+AGE\s+REPO\s+BRANCH$/);
    expect(lines.slice(1, 3).map((l) => l.split(/\s+/).slice(0, 6))).toEqual([
      ['aaa', expect.stringMatching(/^[0-9a-f]{8}$/), '0', 'owner', 'live', 'op-aaa'],
      ['bbb', expect.stringMatching(/^[0-9a-f]{8}$/), '0', 'owner', 'live', 'op-bbb'],
    ]);
    const json = JSON.parse((await runFleet(['tasks', '--json'], { env: fenv.env })).stdout);
    expect(json.tmuxError).toBeNull();
    expect(json.tasks.map((t: { slug: string; verdict: number; session: string; agent: { status: string } }) => [t.slug, t.verdict, t.session, t.agent.status])).toEqual([
      ['aaa', 0, 'op-aaa', 'busy'],
      ['bbb', 0, 'op-bbb', 'busy'],
    ]);
  });

  it("shows a task's acceptance gate (spawn --accept): in tasks, tasks --json and the dashboard's line for the selected task", async () => {
    const table = await runFleet(['tasks'], { env: fenv.env });
    expect(table.stdout.trim().split('\n').slice(3)).toEqual(['', 'acceptance gates:', '  aaa: tests pass · docs updated']);
    const json = JSON.parse((await runFleet(['tasks', '--json'], { env: fenv.env })).stdout);
    expect(json.tasks.map((t: { acceptance: { text: string }[] }) => t.acceptance.map((a) => a.text))).toEqual([['tests pass', 'docs updated'], []]);
    // aaa is the first row, selected: the bottom line says its gate.
    await client.waitForStatus(/accept: tests pass · docs updated/, 15_000, true);
  });

  it('moves with j and switches the client to the selected session with Enter', async () => {
    await server.run(['send-keys', '-t', '=dash:', 'j']);
    await server.run(['send-keys', '-t', '=dash:', 'Enter']);
    await waitFor(async () => (await server.run(['list-clients', '-F', '#{session_name}'])).trim() === 'op-bbb', 'client on op-bbb', 10_000);
  });

  it('r on a task whose Driver is gone restores it (marked restorable): a handover with reason resume, the client follows', async () => {
    const taskFile = join(fenv.home, 'tasks', 'aaa', 'task.json');
    const before = JSON.parse(await readFile(taskFile, 'utf8')) as { driverSid: string };
    await server.run(['kill-session', '-t', '=op-aaa:']);
    await server.newSession('dash2', [process.execPath, FLEET_BIN, 'dashboard']);
    await server.run(['switch-client', '-t', '=dash2:']);
    await waitFor(async () => /aaa\s+-\s+[0-9a-f]{8}\s+9 other\s.*↻ restorable/.test(await server.run(['capture-pane', '-p', '-t', '=dash2:'])), 'aaa shown restorable', 15_000);
    expect(await server.run(['capture-pane', '-p', '-t', '=dash2:'])).toContain('1 restorable (R)');
    await server.run(['send-keys', '-t', '=dash2:', 'r']);
    await waitFor(async () => (await server.run(['list-clients', '-F', '#{session_name}'])).trim() === 'op-aaa', 'client on the resumed op-aaa', 15_000);
    const after = await waitFor(async () => {
      const t = JSON.parse(await readFile(taskFile, 'utf8')) as { driverSid?: string; handovers?: { from: string; to: string; reason: string; pane?: string }[] };
      return t.driverSid ? t : null;
    }, 'the resumed Driver stamped', 15_000);
    expect(after?.handovers?.at(-1)).toMatchObject({ from: before.driverSid, to: after?.driverSid, reason: 'resume', pane: 'op-aaa' });
  });
});
