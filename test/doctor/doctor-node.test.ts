// doctor checks the node the plugin found (TMUX_FLEET_NODE in tmux's global
// environment) and the node the Claude Code hook names: present, 20 or later.
// Without node the supervisor is not blamed: the node check says why.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await server.run(['set-option', '-g', '@fleet-version', '0.1.0']);
  await server.run(['bind-key', '-T', 'prefix', 'F', 'run-shell', `${FLEET_BIN} dashboard`]);
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
});

const doctor = async () => {
  const r = await runFleet(['doctor'], { env: fenv.env });
  return { ...r, lines: r.stdout.split('\n') };
};

describe('doctor: node', () => {
  it('the node the plugin recorded: ✔ with its version', async () => {
    await server.run(['set-environment', '-g', 'TMUX_FLEET_NODE', process.execPath]);
    const r = await doctor();
    expect(r.lines).toContainEqual(`✔ node: ${process.execPath} (${process.version}), found by the plugin`);
  });

  it('none recorded by a loaded plugin: ✖ naming the cause; the supervisor check points at it, not at a reload', async () => {
    await server.run(['set-environment', '-g', '-u', 'TMUX_FLEET_NODE']);
    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(r.lines).toContainEqual(expect.stringMatching(/^✖ node: the plugin found no node on tmux's PATH nor in the usual places — fix: install Node\.js 20 or later, or set -g @fleet-node \/path\/to\/node, then reload the plugin$/));
    expect(r.lines).toContainEqual(expect.stringMatching(/^✖ supervisor: not running for this server — fix: it needs node: see the node check$/));
  });

  it('a recorded node that is gone, or too old: ✖', async () => {
    await server.run(['set-environment', '-g', 'TMUX_FLEET_NODE', '/nonexistent/bin/node']);
    expect((await doctor()).lines).toContainEqual(expect.stringMatching(/^✖ node: \/nonexistent\/bin\/node, recorded by the plugin, is not there — fix: /));
    const old = join(fenv.root, 'old-node');
    await writeFile(old, '#!/bin/sh\necho v18.19.0\n');
    await chmod(old, 0o755);
    await server.run(['set-environment', '-g', 'TMUX_FLEET_NODE', old]);
    expect((await doctor()).lines).toContainEqual(expect.stringMatching(/^✖ node: .*old-node is v18\.19\.0; the helper needs Node\.js 20 or later — fix: /));
  });

  it("the hook's node: one that is gone fails (Claude Code would show a failed hook at every start)", async () => {
    await mkdir(fenv.claudeDir, { recursive: true });
    await writeFile(
      join(fenv.claudeDir, 'settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `/nonexistent/bin/node ${FLEET_BIN} stamp` }] }] } }),
    );
    expect((await doctor()).lines).toContainEqual(expect.stringMatching(/^✖ hook: SessionStart runs node \/nonexistent\/bin\/node, which does not exist .* — fix: tmux-fleet hooks install$/));
  });
});
