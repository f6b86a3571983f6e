// A verdict's reason is worded for whoever reads it (docs/ownership.md#output):
// "you" only when the reader's own session is the Driver, else the Driver
// named by its tmux session. `tasks` (and the dashboard, which names its
// reader the same way) read from a session that is not the Driver, from the
// Driver's own pane, from a popup (no pane, $TMUX names the session) and
// from outside tmux. A real tmux server; the Driver a stand-in agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { STAND_IN } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';
import { updateTask, type Task } from '../../src/tasks';
import { readdir } from 'node:fs/promises';

const DRIVER = 'c8d7a55e-1111-4222-8333-444444444444';
const OTHER = '0f0f0f0f-5555-4666-8777-888888888888';
const THIRD_PERSON =
  'task add-search: Driver: op-add-search (c8d7a55e), live; to take over on purpose: tmux-fleet takeover add-search --force (refused without it while that session may be live)';
const YOU = 'task add-search: you are its Driver';

let server: TestServer;
let fenv: FleetEnv;
let tmuxEnv: (session: string) => Promise<Record<string, string>>;

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await server.newSession('main');
  await server.newSession('op-add-search', [process.execPath, STAND_IN], { ...fenv.env, STAND_IN_SID: DRIVER, STAND_IN_NO_STAMP: '1' });
  await waitFor(async () => (await readdir(fenv.registry)).some((n) => n.endsWith('.json')), 'the Driver row');
  await server.run(['set-option', '-t', '=op-add-search:', '@claude_session_id', DRIVER]);
  await server.run(['set-option', '-t', '=op-add-search:', '@fleet-task', 'add-search']);
  await updateTask(fenv.home, 'add-search', () => ({ slug: 'add-search', driverSid: DRIVER, driverPane: 'op-add-search' }) as Task, { create: true });
  const socket = (await server.run(['display-message', '-p', '#{socket_path},#{pid}'])).trim();
  // As tmux sets them: in a pane $TMUX and $TMUX_PANE; in a popup only $TMUX, whose last field is the session's id.
  tmuxEnv = async (session: string) => {
    const [pane, id] = (await server.run(['display-message', '-p', '-t', `=${session}:`, '#{pane_id} #{session_id}'])).trim().split(' ');
    return { TMUX: `${socket},${id!.slice(1)}`, TMUX_PANE: pane! };
  };
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
});

const reason = async (env: Record<string, string | undefined>) => {
  const r = await runFleet(['tasks', '--json'], { env: { ...fenv.env, ...env } });
  expect(r.exitCode, r.stderr).toBe(0);
  return (JSON.parse(r.stdout).tasks as { slug: string; reason: string }[]).find((t) => t.slug === 'add-search')!.reason;
};

describe("tasks: the reason speaks to its reader (the dashboard's bottom line is the same)", () => {
  it('read from main (no Driver there): the Driver by its session, never "you"', async () => {
    expect(await reason(await tmuxEnv('main'))).toBe(THIRD_PERSON);
  });

  it("read from a popup opened on main (no pane: $TMUX's session): the same", async () => {
    const { TMUX } = await tmuxEnv('main');
    expect(await reason({ TMUX })).toBe(THIRD_PERSON);
  });

  it("read from the Driver's own pane, or a popup on its session: you", async () => {
    const driver = await tmuxEnv('op-add-search');
    expect(await reason(driver)).toBe(YOU);
    expect(await reason({ TMUX: driver.TMUX })).toBe(YOU);
  });

  it('outside tmux: nobody is "you"; an agent names itself by $CLAUDE_CODE_SESSION_ID', async () => {
    expect(await reason({})).toBe(THIRD_PERSON);
    expect(await reason({ CLAUDE_CODE_SESSION_ID: OTHER })).toBe(THIRD_PERSON);
    expect(await reason({ CLAUDE_CODE_SESSION_ID: DRIVER })).toBe(YOU);
  });

  it('owner words its reason for its asker the same way', async () => {
    const other = await runFleet(['owner', 'add-search', '--as', OTHER, '--json'], { env: fenv.env });
    expect(JSON.parse(other.stdout).reason).toBe(THIRD_PERSON);
    const self = await runFleet(['owner', 'add-search', '--as', DRIVER], { env: fenv.env });
    expect(self.stdout).toBe('0 owner (task add-search: you are its Driver)');
  });
});
