// A tmux server that does not answer (stopped with SIGSTOP: a suspended
// terminal, a debugger, a machine under swap) must not hang the helper: the
// agent's SessionStart hook (`stamp`) would hold up the agent's start, `owner`
// a script, `sid-of-pane` a status line. Every tmux call has a deadline:
// the stamp gives up silently (exit 0, a log line), owner answers 5 naming
// the timeout, the rest fail with one line. The server is resumed and killed after.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors';
import { updateTask } from '../../src/tasks/store';
import { Tmux, TMUX_DEADLINE_MS } from '../../src/tmux/client';
import { ShellRunner } from '../../src/tmux/shell-runner';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { startServer, type TestServer } from '../helpers/tmux-server';
import { nonce } from '../helpers/stand-in-world';

let server: TestServer;
let fe: FleetEnv;
let serverPid: number;
let paneId: string;

beforeEach(async () => {
  server = await startServer();
  fe = await makeFleetEnv(server.name);
  serverPid = Number((await server.run(['display-message', '-p', '#{pid}'])).trim());
  await server.newSession('op-t');
  const n = nonce();
  await server.run(['set-option', '-t', '=op-t:', '@spawn_nonce', n]);
  await server.run(['set-option', '-t', '=op-t:', '@fleet-task', 't']);
  paneId = (await server.run(['display-message', '-p', '-t', '=op-t:', '#{pane_id}'])).trim();
  await updateTask(fe.home, 't', () => ({ slug: 't', driverSid: '', driverPane: 'op-t', spawnNonce: n }), { create: true });
  process.kill(serverPid, 'SIGSTOP');
});

afterEach(async () => {
  process.kill(serverPid, 'SIGCONT');
  await server.kill();
  await fe.cleanup();
});

const SID = 'abcd1234-0000-4000-8000-000000000001';
const seconds = `${TMUX_DEADLINE_MS / 1000} s`;

describe('a stopped tmux server', () => {
  it('a call gives up at the deadline, through execa, the direct runner and the supervisor\'s shell, as a TmuxError that says so', async () => {
    const shell = new ShellRunner();
    for (const runner of ['execa', 'direct', 'shell'] as const) {
      const tmux = new Tmux({ name: server.name }, 'tmux', {
        direct: runner === 'direct',
        deadlineMs: 300,
        ...(runner === 'shell' ? { runner: (b: string, a: readonly string[], d: number) => shell.run(b, a, d) } : {}),
      });
      const r = await tmux.tryRun(['display-message', '-p', '#{pid}']);
      expect(r.timedOut, runner).toBe(true);
      expect(r.exitCode).not.toBe(0);
      let caught: unknown;
      try {
        await tmux.run(['display-message', '-p', '#{pid}']);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(TmuxError);
      expect((caught as TmuxError).timedOut).toBe(true);
      expect((caught as TmuxError).message).toBe(`tmux display-message on tmux server -L ${server.name}: no answer within 0.3 s (is the server stopped?)`);
    }
    shell.close();
  });

  it('stamp (the SessionStart hook) prints nothing, exits 0 and logs the timeout', async () => {
    const r = await runFleet(['stamp'], { env: { ...fe.env, TMUX_PANE: paneId }, input: JSON.stringify({ session_id: SID, source: 'startup' }), timeoutMs: 20_000 });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(readFileSync(join(fe.home, 'log'), 'utf8')).toContain(`no answer within ${seconds}`);
  });

  it('owner on a pending task answers 5 and names the timeout', async () => {
    const r = await runFleet(['owner', 't', '--as', SID], { env: fe.env, timeoutMs: 20_000 });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toContain(`no answer within ${seconds}`);
    const j = await runFleet(['owner', 't', '--as', SID, '--json'], { env: fe.env, timeoutMs: 20_000 });
    expect(j.exitCode).toBe(5);
    expect((JSON.parse(j.stdout) as { reason: string }).reason).toContain(`no answer within ${seconds}`);
  });

  it('sid-of-pane fails with one line naming the timeout', async () => {
    const r = await runFleet(['sid-of-pane', 'op-t'], { env: fe.env, timeoutMs: 20_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`no answer within ${seconds}`);
  });
});
