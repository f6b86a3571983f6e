// doctor after an update: a helper built from other sources than its checkout,
// and a supervisor running another build than the helper, are failures with the
// fix (reload the plugin: it rebuilds and replaces the supervisor).
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidFileContent, supervisorPidFile } from '../../src/nudge';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;
let builtFrom: string;

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  builtFrom = (await readFile(join(ROOT, 'dist', 'built-from'), 'utf8')).trim();
  await server.run(['set-option', '-g', '@fleet-version', '0.1.0']);
  await server.run(['set-environment', '-g', 'TMUX_FLEET_NODE', process.execPath]);
  await server.run(['bind-key', '-T', 'prefix', 'F', 'run-shell', `${FLEET_BIN} dashboard`]);
  const socketPath = (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
  const pidFile = supervisorPidFile(fenv.home, socketPath);
  await mkdir(join(pidFile, '..'), { recursive: true, mode: 0o700 });
  await writeFile(pidFile, pidFileContent(process.pid));
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
});

const lines = async (bin?: string) => (await runFleet(['doctor'], { env: fenv.env, bin })).stdout.split('\n');

describe('doctor after an update', () => {
  it('the helper built from this checkout, the supervisor running this build: ✔', async () => {
    await server.run(['set-option', '-g', '@fleet-supervisor-build', `${process.pid} ${builtFrom}`]);
    const out = await lines();
    expect(out).toContainEqual(`✔ helper: built from the checkout (version ${builtFrom.split(' ')[0]})`);
    expect(out).toContainEqual(`✔ supervisor: running (pid ${process.pid})`);
  });

  it('a supervisor of another build, or one that does not say (older than this check): ✖ with the fix', async () => {
    await server.run(['set-option', '-g', '@fleet-supervisor-build', `${process.pid} 0.0.9 1-1`]);
    expect(await lines()).toContainEqual(
      expect.stringMatching(new RegExp(`^✖ supervisor: running \\(pid ${process.pid}\\), built from other sources \\(0\\.0\\.9 1-1\\) than this helper \\(${builtFrom}\\) — fix: reload the plugin \\(prefix I`)),
    );
    await server.run(['set-option', '-gu', '@fleet-supervisor-build']);
    expect(await lines()).toContainEqual(expect.stringMatching(/^✖ supervisor: running \(pid \d+\), started by an older build \(it does not say which\) — fix: /));
  });

  it('a checkout whose sources changed since its helper was built (prefix U, git pull): ✖ helper, naming both', async () => {
    const copy = join(fenv.root, 'plugin');
    await mkdir(copy);
    for (const p of ['dist', 'scripts', 'src', 'package.json', 'package-lock.json']) await cp(join(ROOT, p), join(copy, p), { recursive: true });
    await server.run(['set-option', '-g', '@fleet-supervisor-build', `${process.pid} ${builtFrom}`]);
    const bin = join(copy, 'dist', 'tmux-fleet.cjs');
    expect(await lines(bin)).toContainEqual(`✔ helper: built from the checkout (version ${builtFrom.split(' ')[0]})`);
    const pkg = JSON.parse(await readFile(join(copy, 'package.json'), 'utf8'));
    await writeFile(join(copy, 'package.json'), JSON.stringify({ ...pkg, version: '9.9.9' }, null, 2));
    const out = await lines(bin);
    expect(out).toContainEqual(
      expect.stringMatching(new RegExp(`^✖ helper: built from other sources than the checkout in ${copy} \\(built: ${builtFrom}; checkout: 9\\.9\\.9 \\d+-\\d+\\) — fix: reload the plugin`)),
    );
  });
});
