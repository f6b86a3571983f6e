// doctor on a real tmux server as a new user sets up: plugin loaded and
// supervisor running, no Claude Code hook (it is optional), a Driver that is
// another CLI agent (it stamps itself and writes no registry row). What is
// optional and absent is a note (–), never a failure: exit 0.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidFileContent, supervisorPidFile } from '../../src/nudge';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';
import { sq, startServer, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  // What the plugin and its supervisor leave behind.
  await server.run(['set-option', '-g', '@fleet-version', '0.1.0']);
  await server.run(['set-environment', '-g', 'TMUX_FLEET_NODE', process.execPath]);
  await server.run(['set-option', '-g', '@fleet-supervisor-build', `${process.pid} ${(await readFile(join(ROOT, 'dist', 'built-from'), 'utf8')).trim()}`]);
  await server.run(['bind-key', '-T', 'prefix', 'F', 'run-shell', `${FLEET_BIN} dashboard`]);
  const socketPath = (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
  const pidFile = supervisorPidFile(fenv.home, socketPath);
  await mkdir(join(pidFile, '..'), { recursive: true, mode: 0o700 });
  await writeFile(pidFile, pidFileContent(process.pid));
  // Another CLI agent as the Driver: it stamps its own session, as the README says.
  const agent = `${sq(process.execPath)} ${sq(FLEET_BIN)} stamp --sid myagent-session-7; exec sleep 86400`;
  const env = Object.entries(fenv.env).map(([k, v]) => `${k}=${sq(v)}`).join(' ');
  const r = await runFleet(['spawn', 'fix-login', '--cmd', `env ${env} sh -c ${sq(agent)}`], { env: fenv.env });
  expect(r.exitCode, r.stderr).toBe(0);
  await waitFor(async () => (await server.run(['display-message', '-p', '-t', '=op-fix-login:', '#{@claude_session_id}'])).trim(), 'the stamp');
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
});

describe('doctor: optional things missing are notes, not failures', () => {
  it('no Claude Code hook and a Driver that is another agent: every line ✔ or –, exit 0', async () => {
    const r = await runFleet(['doctor', '--session', 'op-fix-login'], { env: fenv.env });
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.filter((l) => l.startsWith('✖')), r.stdout).toEqual([]);
    expect(lines).toContainEqual(expect.stringMatching(/^– hook: no SessionStart hook runs tmux-fleet stamp in .*settings\.json \(optional: .*tmux-fleet hooks install/));
    expect(lines).toContainEqual('✔ stamp: op-fix-login runs session myagent-session-7');
    expect(lines).toContainEqual('✔ task fix-login: op-fix-login is its Driver (0 owner)');
    expect(lines).toContainEqual(expect.stringMatching(/^– attach target: none \(no registry row holds myagent-session-7/));
    expect(r.exitCode).toBe(0);
  });

  it('notifications to a desktop no server is reachable from, a word that names no channel, a command channel with no command: notes, exit 0', async () => {
    await server.run(['set-option', '-g', '@fleet-notify', 'toast desktop phone command']);
    try {
      const r = await runFleet(['doctor', '--session', 'op-fix-login'], { env: { ...fenv.env, DBUS_SESSION_BUS_ADDRESS: '', XDG_RUNTIME_DIR: '/nonexistent' } });
      const lines = r.stdout.split('\n').filter(Boolean);
      expect(lines).toContainEqual('✔ notifications: toast desktop command');
      expect(lines).toContainEqual('– notifications: @fleet-notify names no channel "phone" (ignored; the channels: toast terminal desktop bell command)');
      expect(lines).toContainEqual(expect.stringMatching(/^– notifications: desktop: (no desktop session reachable|notify-send not found)/));
      expect(lines).toContainEqual('– notifications: command: @fleet-notify-command is empty; nothing is run');
      expect(r.exitCode).toBe(0);
      // Set to '': none, said as such (a format alone cannot tell it from unset).
      await server.run(['set-option', '-g', '@fleet-notify', '']);
      expect((await runFleet(['doctor'], { env: fenv.env })).stdout).toContain("✔ notifications: none (@fleet-notify '')");
    } finally {
      await server.run(['set-option', '-gu', '@fleet-notify']);
    }
  });
});
