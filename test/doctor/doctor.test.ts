// doctor on a real tmux server, on a session whose tab has parked its work on a job.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidFileContent, supervisorPidFile } from '../../src/nudge';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT, STAND_IN } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';
import { registryRows } from '../helpers/registry-rows';

const TAB = '10e378ef-5b0f-4c41-9d3c-7b0a1c2d3e4f';

let server: TestServer;
let fenv: FleetEnv;

async function rows(): Promise<Record<string, unknown>[]> {
  return registryRows(fenv.registry);
}

const type = async (text: string) => {
  await server.run(['send-keys', '-t', '=op-demo:', '-l', text]);
  await server.run(['send-keys', '-t', '=op-demo:', 'Enter']);
};

const doctor = (...extra: string[]) => runFleet(['doctor', '--session', 'op-demo', ...extra], { env: fenv.env });

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await server.newSession('op-demo', [process.execPath, STAND_IN], { ...fenv.env, STAND_IN_SID: TAB, STAND_IN_NO_STAMP: '1' });
  await waitFor(async () => (await rows()).some((r) => r.sessionId === TAB), 'the tab row');
  await server.run(['set-option', '-t', '=op-demo:', '@claude_session_id', TAB]);
  await server.run(['set-option', '-t', '=op-demo:', '@fleet-task', 'demo']);
  const dir = join(fenv.home, 'tasks', 'demo');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'demo', driverSid: TAB, driverPane: 'op-demo', createdAt: now, updatedAt: now }), { mode: 0o600 });
  await type('/park e9e4ae8e waiting permission prompt');
  await waitFor(async () => (await rows()).some((r) => r.jobId === 'e9e4ae8e' && r.status === 'waiting'), 'the job row');
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
});

describe('doctor', () => {
  it('without plugin and supervisor: fails, and says how to fix each; no hook is a note (it is optional)', async () => {
    const r = await doctor();
    expect(r.exitCode).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^✔ tmux version: tmux 3\.\d/));
    expect(lines).toContainEqual(expect.stringMatching(/^✔ server: reachable/));
    expect(lines).toContainEqual(expect.stringMatching(/^✖ plugin: not loaded \(@fleet-version is unset\) — fix: /));
    expect(lines).toContainEqual(expect.stringMatching(/^✖ supervisor: not running for this server — fix: /));
    expect(lines).toContainEqual(expect.stringMatching(/^– hook: no SessionStart hook runs tmux-fleet stamp in .* \(optional: .*tmux-fleet hooks install makes it instant\)$/));
  });

  it('a hook that names a helper file that is gone (an older build) fails, with the fix', async () => {
    const settings = join(fenv.claudeDir, 'settings.json');
    const gone = join(fenv.root, 'old place', 'dist', 'tmux-fleet.mjs');
    await writeFile(settings, JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `'${gone}' stamp` }] }] } }));
    const lines = (await doctor()).stdout.split('\n');
    expect(lines).toContainEqual(`✖ hook: SessionStart runs ${gone}, which does not exist (${settings}) — fix: tmux-fleet hooks install`);
  });

  it('on a parked session: the hop spelled out and the job socket checked, never printed in full', async () => {
    // What the plugin and the supervisor leave behind.
    await server.run(['set-option', '-g', '@fleet-version', '0.1.0']);
    await server.run(['set-environment', '-g', 'TMUX_FLEET_NODE', process.execPath]);
  await server.run(['set-option', '-g', '@fleet-supervisor-build', `${process.pid} ${(await readFile(join(ROOT, 'dist', 'built-from'), 'utf8')).trim()}`]);
    await server.run(['bind-key', '-T', 'prefix', 'F', 'run-shell', `${FLEET_BIN} dashboard`]);
    const socketPath = (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
    const pidFile = supervisorPidFile(fenv.home, socketPath);
    await mkdir(join(pidFile, '..'), { recursive: true });
    await writeFile(pidFile, pidFileContent(process.pid));
    await writeFile(
      join(fenv.claudeDir, 'settings.json'),
      JSON.stringify({ model: 'x', hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `'${FLEET_BIN}' stamp` }] }] } }),
    );

    const r = await doctor();
    const job = (await rows()).find((x) => x.jobId === 'e9e4ae8e')!;
    const tab = (await rows()).find((x) => x.sessionId === TAB && !x.jobId)!;
    const jobSocket = String(job.messagingSocketPath);
    // fleet home, tmux version and server lines first.
    expect(r.stdout.split('\n')[0]).toBe(`✔ fleet home: ${fenv.home}`);
    expect(r.stdout.split('\n').slice(3)).toEqual([
      '✔ plugin: loaded (version 0.1.0; 1 key)',
      `✔ node: ${process.execPath} (${process.version}), found by the plugin`,
      expect.stringMatching(/^✔ helper: built from the checkout \(version \d+\.\d+\.\d+\)$/),
      `✔ supervisor: running (pid ${process.pid})`,
      '✔ notifications: toast terminal',
      `✔ registry: ${fenv.registry}: 2 rows (0 malformed, 0 stale)`,
      `✔ hook: installed in ${join(fenv.claudeDir, 'settings.json')}: \`'${FLEET_BIN}' stamp\``,
      // The stamp alone (an older install): the state hooks are a note, with the fix.
      '– hook: without the state hooks of PermissionRequest, SessionEnd (busy, idle and what a wait is for): tmux-fleet hooks install adds them',
      `✔ stamp: op-demo runs session ${TAB}`,
      expect.stringMatching(new RegExp(`^✔ agent: pid ${tab.pid} \\(node, started [^)]+\\) under pane %\\d+ holds session 10e378ef, matches the stamp$`)),
      '✔ task demo: op-demo is its Driver (0 owner)',
      '✔ attach target: 10e3 → e9e4 (that tab has parked its work on background job e9e4ae8e)',
      `✔ agent: waiting: permission prompt (from the job's row, pid ${job.pid})`,
      `✔ socket: …/stand-in-${job.pid}.sock reachable (the job's socket)`,
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain(jobSocket);

    const j = await doctor('--json');
    const report = JSON.parse(j.stdout);
    expect(report).toMatchObject({ ok: true, session: 'op-demo' });
    expect(report.checks.map((c: { id: string }) => c.id)).toEqual([
      'fleet-home', 'tmux-version', 'server', 'plugin', 'node', 'helper', 'supervisor', 'notify', 'registry', 'hook', 'hook-events', 'stamp', 'pane-agent', 'task', 'attach', 'agent', 'socket',
    ]);
    expect(j.stdout).not.toContain(jobSocket);

    // Nobody listening on the job's socket: that check fails, and the run with it.
    await rm(jobSocket);
    const broken = await doctor();
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toContain(`✖ socket: …/stand-in-${job.pid}.sock not reachable (the job's socket: ENOENT) — fix: `);
    expect(broken.stdout).not.toContain(jobSocket);
  });

  it('an unknown session fails clearly', async () => {
    const r = await runFleet(['doctor', '--session', 'nope'], { env: fenv.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('✖ session: no tmux session named "nope"');
  });
});
