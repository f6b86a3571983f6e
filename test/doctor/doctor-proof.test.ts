// doctor on a real tmux server: the pane proof (which agent runs under a
// session's panes, by process ancestry), no agent attributed by directory, the
// fix that fits an agent that is not Claude Code, the server named from $TMUX,
// and no server started where none runs.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, makeTempDir, runFleet, waitFor, type FleetEnv, type TempDir } from '../helpers/env';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { attachStatusClient, removeSocketFile, sq, startServer, type TestServer } from '../helpers/tmux-server';
import { registryRows } from '../helpers/registry-rows';

const AGENT = 'a9c1f00d-1111-4c41-9d3c-7b0a1c2d3e4f';
const OTHER = 'b7d2e11e-2222-4c41-9d3c-7b0a1c2d3e4f';
const UNSTAMPED = 'c8e8bf8b-3333-4c41-9d3c-7b0a1c2d3e4f';

let server: TestServer;
let fenv: FleetEnv;
let work: TempDir;

async function rowOf(sid: string): Promise<Record<string, unknown> | undefined> {
  return (await registryRows(fenv.registry)).find((row) => row.sessionId === sid);
}

/** A stand-in agent (no hook of its own) in `session`, started in the shared work directory. */
async function agentSession(session: string, sid: string): Promise<Record<string, unknown>> {
  const env = { ...fenv.env, STAND_IN_SID: sid, STAND_IN_NO_STAMP: '1' };
  const e = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await server.run(['new-session', '-d', '-s', session, '-c', work.path, ...e, process.execPath, STAND_IN]);
  return (await waitFor(() => rowOf(sid), `the row of ${sid}`)) as Record<string, unknown>;
}

const paneOf = async (session: string) => (await server.run(['display-message', '-p', '-t', `=${session}:`, '#{pane_id}'])).trim();
const setStamp = (session: string, sid: string) => server.run(['set-option', '-t', `=${session}:`, '@claude_session_id', sid]);
const doctor = (session: string, env: Record<string, string | undefined> = {}) =>
  runFleet(['doctor', '--session', session], { env: { ...fenv.env, ...env } });
const lines = (stdout: string) => stdout.split('\n');

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  work = await makeTempDir('fleet-test-work-');
  // The hook is installed: the fix for a session without Claude Code must not be "install the hook".
  await writeFile(join(fenv.claudeDir, 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `'${FLEET_BIN}' stamp` }] }] } }));
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
  await work?.cleanup();
});

describe('doctor --session: the pane proof', () => {
  it('an agent under the pane that holds the stamp: pid, process name, start, pane and session', async () => {
    const row = await agentSession('proof-ok', AGENT);
    await setStamp('proof-ok', AGENT);
    const r = await doctor('proof-ok');
    const pane = await paneOf('proof-ok');
    const proof = lines(r.stdout).find((l) => l.includes('agent: pid'));
    expect(proof).toMatch(
      new RegExp(`^✔ agent: pid ${row.pid} \\(node, started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\) under pane ${pane} holds session a9c1f00d, matches the stamp$`),
    );
  });

  it('another session id under the pane than the stamp: ✖ with both and the fix', async () => {
    const row = await agentSession('proof-other', OTHER);
    await setStamp('proof-other', UNSTAMPED);
    const r = await doctor('proof-other');
    expect(r.exitCode).toBe(1);
    const pane = await paneOf('proof-other');
    expect(lines(r.stdout)).toContainEqual(
      expect.stringMatching(new RegExp(`^✖ agent: pid ${row.pid} \\(node, started [^)]+\\) under pane ${pane} holds session b7d2e11e, not the stamp c8e8bf8b — fix: run tmux-fleet stamp --sid ${OTHER} inside proof-other$`)),
    );
  });

  it('a stamp whose agent runs under no pane of the session: the stamp names it, but no live agent runs there', async () => {
    await server.run(['new-session', '-d', '-s', 'proof-gone', 'sleep', '86400']);
    await setStamp('proof-gone', AGENT); // AGENT's row is live, under proof-ok's pane
    const r = await doctor('proof-gone');
    expect(r.exitCode).toBe(1);
    expect(lines(r.stdout)).toContainEqual(
      expect.stringMatching(/^✖ agent: the stamp names a9c1f00d but no live agent runs under the panes of proof-gone — fix: /),
    );
  });

  it('a task session with an agent and no stamp: the supervisor stamps it; is it running?', async () => {
    await agentSession('proof-unstamped', UNSTAMPED);
    await server.run(['set-option', '-t', '=proof-unstamped:', '@fleet-task', 'unstamped']);
    const r = await doctor('proof-unstamped');
    expect(r.exitCode).toBe(1);
    const out = lines(r.stdout);
    expect(out).toContainEqual('✖ stamp: proof-unstamped carries no @claude_session_id — fix: the supervisor stamps it within a second; is it running? (see the supervisor check)');
    expect(out).toContainEqual(expect.stringMatching(/^✖ agent: pid \d+ \(node, [^)]+\) under pane %\d+ holds session c8e8bf8b, but proof-unstamped carries no stamp — fix: the supervisor stamps it within a second; is it running\?$/));
  });
});

describe('doctor --session: nothing attributed by directory', () => {
  it('a plain shell in the directory of a live agent gets no attach target and no agent', async () => {
    await server.run(['new-session', '-d', '-s', 'plain', '-c', work.path, 'sleep', '86400']);
    const row = await rowOf(AGENT);
    expect(row?.cwd).toBe(work.path); // the trap: an agent runs in the same directory
    const r = await doctor('plain');
    const out = lines(r.stdout);
    expect(out).toContainEqual("– attach target: none (plain has no stamp; an agent is never taken for a session's by its directory)");
    expect(out).toContainEqual('– agent: none runs under the panes of plain');
    expect(r.stdout).not.toMatch(/guessed|a9c1|b7d2|c8e8/);
  });
});

describe('doctor --session: an agent that is not Claude Code', () => {
  it('a spawned session running a shell, with the hook installed: the fix is the stamp command, not "install the hook"', async () => {
    await server.run(['new-session', '-d', '-s', 'demo1', 'sleep', '86400']);
    await server.run(['set-option', '-t', '=demo1:', '@spawn_nonce', 'n-123']);
    await server.run(['set-option', '-t', '=demo1:', '@fleet-task', 'demo1']);
    const r = await doctor('demo1');
    const out = lines(r.stdout);
    expect(out).toContainEqual(expect.stringMatching(/^✔ hook: /));
    expect(out).toContainEqual(
      '✖ stamp: demo1 carries no @claude_session_id, and no Claude Code, Codex CLI or Gemini CLI runs under its panes — fix: any other CLI agent becomes a Driver when tmux-fleet stamp --sid <id> runs inside demo1 (docs/ownership.md#the-stamp)',
    );
    expect(r.stdout).not.toContain('install the hook');

    // The advice works: the agent stamps its own session.
    const pane = await paneOf('demo1');
    expect((await runFleet(['stamp', '--sid', 'other-agent-1'], { env: { ...fenv.env, TMUX_PANE: pane } })).exitCode).toBe(0);
    const after = lines((await doctor('demo1')).stdout);
    expect(after).toContainEqual('✔ stamp: demo1 runs session other-agent-1');
    expect(after).toContainEqual('– agent: no registry row holds other-agent-1 (an agent that writes none, stamped by hand): nothing to prove');
    expect(after).toContainEqual(
      '– attach target: none (no registry row holds other-agent-1: an agent that writes no registry, stamped with tmux-fleet stamp --sid, or one that exited)',
    );
  });
});

describe('doctor: which server', () => {
  it('inside tmux with no --socket: names the server of $TMUX, and checks the session $TMUX names (a popup has no pane)', async () => {
    const socketPath = (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
    const [pid, sessionId] = (await server.run(['display-message', '-p', '-t', '=proof-ok:', '#{pid} #{session_id}'])).trim().split(' ');
    const r = await runFleet(['doctor'], { env: { ...fenv.env, TMUX_FLEET_SOCKET: undefined, TMUX: `${socketPath},${pid},${sessionId!.slice(1)}` } });
    const out = lines(r.stdout);
    expect(out).toContainEqual(expect.stringMatching(new RegExp(`^✔ server: reachable \\(tmux server at ${socketPath} \\(from \\$TMUX\\), pid ${pid}, tmux `)));
    expect(r.stdout).not.toContain('default tmux server');
    expect(out).toContainEqual(`✔ stamp: proof-ok runs session ${AGENT}`);
  });

  it('in a popup opened from a session (as `:fleet doctor` runs it): checks that session', async () => {
    const client = await attachStatusClient(server, 'proof-ok');
    const out = join(work.path, 'popup-doctor.txt');
    try {
      // A popup's environment is the server's, plus $TMUX; it has no $TMUX_PANE.
      for (const [k, v] of Object.entries(fenv.env)) if (k !== 'TMUX_FLEET_SOCKET') await server.run(['set-environment', '-g', k, v]);
      // The agent's session was started with the test's socket choice (-e): the popup must find the server from $TMUX alone.
      await server.run(['set-environment', '-t', '=proof-ok:', '-u', 'TMUX_FLEET_SOCKET']);
      await server.run(['bind-key', '-n', 'F5', 'display-popup', '-E', `${sq(process.execPath)} ${sq(FLEET_BIN)} doctor > ${sq(out)} 2>&1`]);
      await client.outer.run(['send-keys', '-t', '=view:', 'F5']);
      const text = await waitFor(async () => {
        const t = await readFile(out, 'utf8').catch(() => '');
        return /\n(✔|✖|–) attach/.test(t) ? t : '';
      }, 'the popup doctor');
      expect(lines(text)).toContainEqual(`✔ stamp: proof-ok runs session ${AGENT}`);
      expect(text, text).toContain('(from $TMUX)');
      expect(text).not.toContain('not inside tmux');
    } finally {
      await client.kill();
    }
  });

  it('no server: says so, exit 1, and starts none (no socket file left)', async () => {
    const name = `fleet-test-${randomBytes(6).toString('hex')}`;
    const socket = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, name);
    try {
      const r = await runFleet(['doctor', '--socket', name, '--session', 'op-x'], { env: fenv.env });
      expect(r.exitCode).toBe(1);
      expect(lines(r.stdout)).toContainEqual(expect.stringMatching(new RegExp(`^✖ server: no server on ${socket} \\(tmux server -L ${name}\\) — fix: `)));
      expect(lines(r.stdout)).toContainEqual('– session: op-x: not checked (no server)');
      expect(existsSync(socket)).toBe(false);
    } finally {
      // Before the fix doctor started one: never leave it running.
      await execa('tmux', ['-L', name, 'kill-server'], { reject: false });
      await removeSocketFile(name);
    }
  });
});

