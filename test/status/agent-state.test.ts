// Every agent's state on a real server with its supervisor, read through a real
// attached client (docs/ownership.md#what-each-agent-tells): an agent that
// writes no registry row (a stand-in Gemini CLI: node running gemini.js with
// GEMINI_CLI_NO_RELAUNCH=true, as the real one's child runs) shows what its
// pane's title says, the sentence its hook gave while both say waiting, and
// counts in the attention; a hook's signal from another session's pane
// changes nothing.
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { cleanEnv } from '../helpers/hermetic';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

const SID = '7a1c0d52-3b9e-4f11-8c2d-5e6f7a8b9c0d';
const OTHER = '0f0f0f0f-1111-4222-8333-444444444444';

let server: TestServer;
let fenv: FleetEnv;
let supervisor: RunningSupervisor;
let client: StatusClient;
let pane = '';

const opt = async (session: string, name: string) => (await server.run(['show-options', '-qv', '-t', `=${session}:`, name])).trim();
const title = (t: string) => server.run(['select-pane', '-t', pane, '-T', t]);
/** The event hook as an agent runs it: in a pane (its $TMUX_PANE), the hook JSON on stdin. */
async function hookEvent(agent: string, inPane: string, json: Record<string, unknown>): Promise<number> {
  const started = Date.now();
  const r = await execa(process.execPath, [FLEET_BIN, 'event', '--agent', agent], {
    env: { ...cleanEnv(), ...fenv.env, TMUX_PANE: inPane },
    extendEnv: false,
    input: JSON.stringify(json),
    reject: false,
  });
  expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
  return Date.now() - started;
}

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  // A stand-in Gemini CLI: what the supervisor's proof identifies as Gemini's process.
  const bin = join(fenv.root, 'gemini-cli');
  await mkdir(bin, { recursive: true });
  // Like the real one, it runs its SessionStart hook at start (stamp, with the hook JSON on stdin), then waits.
  await writeFile(
    join(bin, 'gemini.js'),
    [
      "const { spawn } = require('node:child_process');",
      `const hook = spawn(process.execPath, [${JSON.stringify(FLEET_BIN)}, 'stamp'], { stdio: ['pipe', 'ignore', 'ignore'] });`,
      `hook.stdin.end(JSON.stringify({ session_id: ${JSON.stringify(SID)}, hook_event_name: 'SessionStart', source: 'startup' }));`,
      'setInterval(() => {}, 1 << 30);',
      '',
    ].join('\n'),
  );
  await chmod(join(bin, 'gemini.js'), 0o755);
  await server.tmux.chain([
    ['set-option', '-g', 'status-left', '[#{@fleet-owner}][#{@fleet-agent}][#{@fleet-attention}]'],
    ['set-option', '-g', 'status-left-length', '180'],
    ['set-option', '-g', 'status-right', ''],
    ['new-session', '-d', '-s', 'elsewhere', '-x', '200', '-y', '20', 'sleep 600'],
  ]);
  supervisor = await startSupervisor(server, fenv);
  // Spawned as a Driver; its SessionStart hook stamps it.
  const spawned = await runFleet(['spawn', 'gem', '--cmd', `env GEMINI_CLI_NO_RELAUNCH=true ${process.execPath} ${join(bin, 'gemini.js')}`], { env: fenv.env });
  expect(spawned.exitCode, spawned.stderr).toBe(0);
  pane = (await server.run(['display-message', '-p', '-t', '=op-gem:', '#{pane_id}'])).trim();
  await waitFor(async () => (await opt('op-gem', '@fleet-stamp-agent')).startsWith('gemini '), 'the stamp and its gemini process', 15_000);
  client = await attachStatusClient(server, 'op-gem', 200);
});

afterAll(async () => {
  await client?.kill();
  await supervisor?.stop().catch(() => undefined);
  await server?.kill();
  await fenv?.cleanup();
});

describe('an agent that writes no registry row', () => {
  it('nothing said yet: its name; then what its title says, class by class', async () => {
    await client.waitForStatus('● owner gem', 15_000);
    await client.waitForStatus('· gemini', 15_000);
    await title('✦ Working… (work)');
    await client.waitForStatus('⚙ busy', 15_000);
    await title('✋ Action Required (work)');
    await client.waitForStatus('! waiting: approval', 15_000);
    await client.waitForStatus('! 1 waiting', 15_000);
    await title('◇ Ready (work)');
    await client.waitForStatus('· idle', 15_000);
    expect(await client.statusLine()).not.toContain('waiting');
  });

  it("a wait shows its hook's sentence; a denial no hook reports is ended by the title", async () => {
    const ms = await hookEvent('gemini', pane, {
      session_id: SID,
      hook_event_name: 'Notification',
      notification_type: 'ToolPermission',
      message: 'Tool Confirm Shell Command requires execution',
      details: { type: 'exec', title: 'Confirm Shell Command', command: 'ls -la /', rootCommand: 'ls' },
    });
    console.log(`event hook: ${ms} ms`);
    await title('✋ Action Required (work)');
    await client.waitForStatus('! approve Shell: ls -la /', 15_000);
    const tasks = JSON.parse((await runFleet(['tasks', '--json'], { env: fenv.env })).stdout) as { tasks: { slug: string; agent: Record<string, unknown> | null }[] };
    expect(tasks.tasks.find((t) => t.slug === 'gem')?.agent).toMatchObject({ sessionId: SID, status: 'waiting', needs: 'approve Shell: ls -la /', waits: true });
    const attention = JSON.parse((await runFleet(['attention', '--json'], { env: fenv.env })).stdout) as { waiting: { who: string; what: string }[] };
    expect(attention.waiting).toEqual([expect.objectContaining({ who: 'gem', what: 'approve Shell: ls -la /' })]);
    // doctor --session says it too, and where it comes from.
    const doctor = await runFleet(['doctor', '--session', 'op-gem'], { env: fenv.env });
    expect(doctor.stdout).toMatch(/^✔ agent state: approve Shell: ls -la \/ \(its Notification hook \d+ s ago; its title "✋ Action Required \(work\)"\)$/m);
    // Denied (Esc): Gemini fires no hook; its title is Ready again.
    await title('◇ Ready (work)');
    await client.waitForStatus('· idle', 15_000);
  });

  it("a signal from another session's pane, or for another id, changes nothing", async () => {
    const other = (await server.run(['display-message', '-p', '-t', '=elsewhere:', '#{pane_id}'])).trim();
    await hookEvent('gemini', other, { session_id: SID, hook_event_name: 'BeforeAgent' });
    await hookEvent('gemini', pane, { session_id: OTHER, hook_event_name: 'BeforeAgent' });
    // Both were recorded and the supervisor woke for them (its wake count moved), yet the segment stays.
    expect((await readdir(join(fenv.home, 'signals'))).sort()).toEqual([`${OTHER}.json`, `${SID}.json`].sort());
    await title('Gemini CLI');
    await client.waitForStatus(/\[ · (idle|gemini) \]/, 15_000);
    expect(await opt('op-gem', '@fleet-agent')).not.toContain('busy');
  });

  it('the hook with hostile input exits 0 at once and writes nothing', async () => {
    for (const input of ['not json', '{"session_id":"../x","hook_event_name":"Stop"}', '']) {
      const r = await execa(process.execPath, [FLEET_BIN, 'event', '--agent', 'codex'], { env: { ...cleanEnv(), ...fenv.env, TMUX_PANE: pane }, extendEnv: false, input, reject: false });
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
    const r = await execa(process.execPath, [FLEET_BIN, 'event', '--agent', 'nobody'], { env: { ...cleanEnv(), ...fenv.env }, extendEnv: false, input: '{}', reject: false });
    expect([r.exitCode, r.stdout]).toEqual([0, '']);
    await waitFor(async () => (await readdir(join(fenv.home, 'signals'))).length === 2, 'no new signal', 2000);
  });
});
