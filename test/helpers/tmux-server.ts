// A private tmux server per test: `tmux -L fleet-test-<random> -f /dev/null`,
// killed afterwards. Never the user's server.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { pidExists } from '../../src/proc';
import { Tmux } from '../../src/tmux';
import { sleep, waitFor } from './env';
import { cleanEnv } from './hermetic';

export interface TestServer {
  name: string;
  tmux: Tmux;
  /** Runs a tmux command on this server (throws on failure). */
  run(args: string[]): Promise<string>;
  /** Starts a detached session running cmd (default: a long sleep) with env given by -e. */
  newSession(name: string, cmd?: string[], env?: Record<string, string>): Promise<void>;
  kill(): Promise<void>;
}

/** tmux leaves its socket file behind when its server is killed: remove it after a kill-server. */
export async function removeSocketFile(name: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  await rm(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, name), { force: true });
}

/** Single-quotes a word for sh. */
export const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A PATH whose `tmux` counts its invocations (in a log under dir) before
 * running the real one. Give it only to the process whose calls are counted.
 */
export async function countingTmux(dir: string): Promise<{ PATH: string; count(): Promise<number> }> {
  const real = (await execa('sh', ['-c', 'command -v tmux'])).stdout.trim();
  const bin = join(dir, 'counting-bin');
  const log = join(dir, 'tmux-calls');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'tmux'), `#!/bin/sh\necho x >> ${sq(log)}\nexec ${sq(real)} "$@"\n`);
  await chmod(join(bin, 'tmux'), 0o755);
  return {
    PATH: `${bin}:${process.env.PATH}`,
    count: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length,
  };
}

export async function startServer(prefix = 'fleet-test'): Promise<TestServer> {
  const name = `${prefix}-${randomBytes(6).toString('hex')}`;
  // The tests drive their server with a generous deadline: the product's 2 s is for a server that stopped, and a loaded machine (a plugin load by run-shell) can take longer.
  const tmux = new Tmux({ name }, 'tmux', { deadlineMs: 60_000 });
  // -f /dev/null: no user config. A keeper session holds the server up between test sessions.
  // The server's global environment is the starting client's: none of the caller's fleet variables.
  await execa('tmux', ['-L', name, '-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', '-x', '200', '-y', '50', 'sleep 86400'], {
    env: cleanEnv(),
    extendEnv: false,
  });
  const pid = Number((await tmux.run(['display-message', '-p', '#{pid}'])).trim());
  const server: TestServer = {
    name,
    tmux,
    run: (args) => tmux.run(args),
    async newSession(session, cmd = ['sleep', '86400'], env = {}) {
      const e = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      await tmux.run(['new-session', '-d', '-s', session, '-x', '200', '-y', '50', ...e, ...cmd]);
    },
    async kill() {
      await tmux.tryRun(['kill-server']);
      // A server that does not go (a client that will not leave) must not outlive the test.
      // A killed server stays a zombie under PID 1 for a while: pidExists counts it as gone.
      const gone = await waitFor(() => !pidExists(pid), `tmux server ${pid} gone`, 3000, 20).catch(() => false);
      if (gone === false) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* it went meanwhile */
        }
      }
      await removeSocketFile(name);
    },
  };
  return server;
}

/**
 * What an attached client's status line shows, read for real: an outer private
 * server whose pane attaches a client to the inner server; capture-pane -p on
 * the outer pane.
 */
export interface StatusClient {
  outer: TestServer;
  /** The whole visible screen of the attached client. */
  screen(): Promise<string>;
  /** The last line of the screen: tmux's status line. */
  statusLine(): Promise<string>;
  /** Polls until the status line (or screen with whole=true) matches. */
  waitForStatus(match: RegExp | string, timeoutMs?: number, whole?: boolean): Promise<string>;
  /**
   * Waits until a status-line job (`#(...)`) that the client's next drawing starts has run:
   * the session's status-right becomes one that touches a file, until the file is there (then
   * it is unset). A job that an earlier drawing started (a value tmux took for a command) was
   * started before it. For a check that nothing ran: it waits for the run, not for a time.
   */
  statusJobsRan(): Promise<void>;
  kill(): Promise<void>;
}

export async function attachStatusClient(inner: TestServer, session: string, width = 160): Promise<StatusClient> {
  const outer = await startServer('fleet-test-outer');
  const attach = `env -u TMUX tmux -L ${inner.name} attach-session -t '=${session}:'`;
  await outer.run(['new-session', '-d', '-s', 'view', '-x', String(width), '-y', '12', attach]);
  await outer.run(['set-option', '-t', '=view:', 'status', 'off']);
  const screen = () => outer.run(['capture-pane', '-p', '-t', '=view:']);
  const statusLine = async () => {
    const lines = (await screen()).replace(/\n+$/, '').split('\n');
    return lines[lines.length - 1] ?? '';
  };
  // Wait until the client is attached.
  await waitFor(
    async () => (await inner.tmux.tryRun(['list-clients', '-t', `=${session}:`])).stdout.trim() !== '',
    'client attached',
  );
  return {
    outer,
    screen,
    statusLine,
    async waitForStatus(match, timeoutMs = 5000, whole = false) {
      const test = (s: string) => (typeof match === 'string' ? s.includes(match) : match.test(s));
      let last = '';
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        last = whole ? await screen() : await statusLine();
        if (test(last)) return last;
        if (Date.now() > deadline) throw new Error(`status never matched ${String(match)}; last: ${JSON.stringify(last)}`);
        await sleep(100);
      }
    },
    async statusJobsRan() {
      const canary = join(tmpdir(), `fleet-status-job-${randomBytes(6).toString('hex')}`);
      await inner.run(['set-option', '-t', `=${session}:`, 'status-right', `#(touch ${canary})`]);
      try {
        await waitFor(() => existsSync(canary), 'a status-line job to run', 15_000);
      } finally {
        await inner.run(['set-option', '-u', '-t', `=${session}:`, 'status-right']);
        await rm(canary, { force: true });
      }
    },
    async kill() {
      await outer.kill();
    },
  };
}
