// The default layout on a real install, read from real attached clients at 80
// and 200 columns: tmux's default status-left and the README's status-right,
// the plugin loaded as TPM loads it (its supervisor running). The session name
// is whole, the window list shows at 80 columns, and the segments shorten on a
// narrow client (the hop's ids first, then the agent's text) without a process.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { ROOT, STAND_IN } from '../helpers/paths';
import { exportFleetEnv } from '../helpers/supervisor';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;
const clients: StatusClient[] = [];
const JOB = 'e9e4ae8e';

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  // The README's example; status-left and both lengths are tmux's defaults.
  await server.run(['set-option', '-g', 'status-right', '#{fleet_owner} #{fleet_hop} #{fleet_agent} %H:%M']);
  await server.run(['run-shell', join(ROOT, 'tmux-plugin.tmux')]);
  const r = await runFleet(['spawn', 'fix-login', '--cmd', `${process.execPath} ${STAND_IN}`], { env: fenv.env });
  expect(r.exitCode, r.stderr).toBe(0);
  await waitFor(async () => (await server.run(['show-options', '-qv', '-t', '=op-fix-login:', '@fleet-owner'])).includes('owner fix-login'), 'the owner segment', 15_000);
  await server.run(['send-keys', '-t', '=op-fix-login:', '-l', `/park ${JOB} waiting permission prompt`]);
  await server.run(['send-keys', '-t', '=op-fix-login:', 'Enter']);
  await waitFor(async () => (await server.run(['show-options', '-qv', '-t', '=op-fix-login:', '@fleet-agent'])).includes('waiting'), 'the job waiting', 15_000);
});

afterAll(async () => {
  for (const c of clients) await c.kill();
  await server?.kill(); // the supervisor exits with its server
  await fenv?.cleanup();
});

async function statusAt(width: number): Promise<string> {
  const c = await attachStatusClient(server, 'op-fix-login', width);
  clients.push(c);
  const line = await c.waitForStatus(/owner fix-login/, 15_000);
  console.log(`status line at ${width} columns: ${line}`);
  return line;
}

describe('the default layout on a real install', () => {
  it('at 200 columns: the session name, the window list and every segment in full', async () => {
    const line = await statusAt(200);
    expect(line).toMatch(/^\[op-fix-login\] /);
    expect(line).toMatch(/ 0:\S+\*/);
    expect(line).toContain('● owner fix-login');
    expect(line).toMatch(new RegExp(`↪ [0-9a-f]{4} → ${JOB.slice(0, 4)}`));
    expect(line).toContain('! waiting: permission prompt');
  });

  it('at 80 columns: the session name whole, the window list shown, the hop without ids and the agent without text', async () => {
    const line = await statusAt(80);
    expect(line).toMatch(/^\[op-fix-login\] /);
    expect(line).toMatch(/ 0:\S+\*/);
    expect(line).toContain('● owner fix-login');
    expect(line).toMatch(/ ↪ +! +\d\d:\d\d/);
    expect(line).not.toContain('→');
    expect(line).not.toContain('waiting');
    expect([...line].length).toBeLessThanOrEqual(80);
  });
});
