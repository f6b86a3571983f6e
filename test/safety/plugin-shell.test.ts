// The plugin's shell side under hostile values: a copy of the plugin (with the
// stand-in helper that records its argv) run the way TPM runs it, on a private
// server, keys pressed on a real attached client.
// - A session option set by hand (`@fleet-task`, `@claude_session_id`) with a
//   newline: tmux 3.3a's #{q:} does not escape newlines, so a value expanded
//   into a run-shell command line would run its second line.
// - The fleet home's log, where the shell side writes: a home another user
//   made (uid 65534, we run as root) holding `log` as a link to a file of ours,
//   a FIFO `log` (a shell's `>>` waits on it for ever: tmux start-up hangs),
//   a home anyone can write to, a home that is another user's link.
// - What the supervisor's run-shell job prints (tmux's `invalid option: …`
//   comes without a newline) reaches the log as log lines: time, who, one line each.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, lchown, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, waitFor, type TempDir } from '../helpers/env';
import { cleanEnv } from '../helpers/hermetic';
import { ROOT } from '../helpers/paths';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

let tmp: TempDir;
let server: TestServer;
let client: StatusClient | undefined;
let plugin: string;
let home: string;

/** A copy of the plugin with the stand-in helper as dist/tmux-fleet.cjs. */
async function pluginCopy(dir: string): Promise<string> {
  await mkdir(join(dir, 'dist'), { recursive: true });
  for (const f of ['tmux-plugin.tmux', 'scripts', 'package.json']) await cp(join(ROOT, f), join(dir, f), { recursive: true });
  await cp(join(ROOT, 'test/fixtures/fake-helper.cjs'), join(dir, 'dist/tmux-fleet.cjs'));
  return dir;
}

/** Runs tmux-plugin.tmux as TPM does: a program, $TMUX naming the server. */
function loadPlugin(env: Record<string, string> = {}, timeoutMs = 60_000): void {
  const socketPath = execFileSync('tmux', ['-L', server.name, 'display-message', '-p', '#{socket_path},#{pid},0']).toString().trim();
  execFileSync(join(plugin, 'tmux-plugin.tmux'), [], {
    env: { ...cleanEnv(), TMUX_FLEET_HOME: home, ...env, TMUX: socketPath } as NodeJS.ProcessEnv,
    timeout: timeoutMs,
    stdio: 'ignore',
  });
}

/**
 * Waits until no process whose command line names the plugin copy is left: the
 * jobs tmux ran for it (a key's run-shell, the supervisor's start and its log
 * lines) and what the plugin started in the background have ended, so what they
 * were to do is done. For a check that something was not done: it waits for the
 * work to end, not for a time.
 */
async function pluginProcessesEnded(): Promise<void> {
  const running = () =>
    readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
      .filter((n) => {
        try {
          return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(plugin);
        } catch {
          return false;
        }
      });
  await waitFor(() => running().length === 0, "the plugin's processes to end", 15_000);
}

const calls = async () => (await readFile(join(plugin, 'calls.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);

beforeEach(async () => {
  tmp = await makeTempDir();
  plugin = await pluginCopy(join(tmp.path, 'plugin'));
  home = join(tmp.path, 'home');
  server = await startServer();
});

afterEach(async () => {
  await client?.kill();
  client = undefined;
  await server.kill();
  await tmp.cleanup();
});

describe('prefix O: no option value reaches a shell command line', () => {
  /**
   * Presses prefix O until the client shows `says`: a key typed just after the client attached is sometimes lost
   * (seen once in CI and here, on an idle machine, with nothing shown in 30 s). A key that never answers still fails.
   */
  const pressOwnerKey = async (says: string): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      await client!.outer.run(['send-keys', '-t', '=view:', 'C-b', 'O']);
      try {
        await client!.waitForStatus(says, 5_000, true);
        return;
      } catch (err) {
        if (attempt === 4) throw err;
      }
    }
  };
  it.each([
    ['@fleet-task', 'is not a task slug'],
    ['@claude_session_id', 'is not a session id'],
  ])('a newline in %s runs nothing; the key says what is wrong', async (option, says) => {
    loadPlugin();
    // #{q:} escapes spaces and `>`, so the second line is one word: a command of no arguments, here a script.
    const marker = join(tmp.path, 'pwned');
    const script = join(tmp.path, 'pwn.sh');
    await writeFile(script, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    const values: Record<string, string> = { '@fleet-task': 'task1', '@claude_session_id': 'sid-1' };
    values[option] = `${values[option]}\n${script}\n`;
    for (const [k, v] of Object.entries(values)) await server.run(['set-option', '-t', '=keeper:', k, v]);
    client = await attachStatusClient(server, 'keeper', 200);
    await pressOwnerKey(says);
    await pluginProcessesEnded();
    expect(existsSync(marker)).toBe(false);
    // The helper was never handed the value as an argument (an option or a slug it would have to refuse).
    for (const argv of await calls()) expect(argv.join(' ')).not.toContain(script);
  });

  it('a task that is not a slug (an option, say) is named as such, never passed on', async () => {
    loadPlugin();
    await server.run(['set-option', '-t', '=keeper:', '@fleet-task', '--home=/tmp/x']);
    await server.run(['set-option', '-t', '=keeper:', '@claude_session_id', 'sid-1']);
    client = await attachStatusClient(server, 'keeper', 200);
    await pressOwnerKey('is not a task slug');
    expect((await calls()).filter((a) => a[0] === 'owner')).toEqual([]);
  });

  it('a proper task and stamp still reach the helper as arguments', async () => {
    loadPlugin();
    await server.run(['set-option', '-t', '=keeper:', '@fleet-task', 'task1']);
    await server.run(['set-option', '-t', '=keeper:', '@claude_session_id', 'sid-1']);
    client = await attachStatusClient(server, 'keeper', 200);
    await pressOwnerKey('fake-helper owner task1 --as sid-1');
    await waitFor(async () => (await calls()).some((a) => a[0] === 'owner'), 'owner called');
    expect((await calls()).find((a) => a[0] === 'owner')).toEqual(['owner', 'task1', '--as', 'sid-1']);
  });
});

const NOBODY = 65534;

/**
 * What the plugin said: with no client attached, every message waits for the first
 * one in a global option that a one-shot hook shows (scripts/helpers.sh,
 * defer_message). Every message is kept, whichever background step says its own
 * last, so this reads the same whatever order they finished in.
 */
const said = async () => {
  const hooks = await server.run(['show-hooks', '-g', 'client-session-changed']).catch(() => '');
  if (!hooks.includes('@fleet-pending-messages')) return '';
  const pending = await server.run(['show-option', '-gqv', '@fleet-pending-messages']).catch(() => '');
  return pending.replace(/^ · /, 'tmux-fleet: ').replaceAll(' · ', ' · tmux-fleet: ');
};

describe('the log of a fleet home the shell side must not trust', () => {
  /** Loads the plugin with a status line that reads a segment (so the plugin logs a line) and waits for the supervisor's start. */
  async function loadAndStartSupervisor(): Promise<void> {
    await server.run(['set-option', '-g', 'status-right', '#{fleet_owner}']);
    loadPlugin();
    await waitFor(async () => (await calls()).some((a) => a[0] === 'supervise'), 'the supervisor started', 15_000);
    await pluginProcessesEnded();
  }

  it("another user's home with `log` linked to a file of ours: the file is not written, the plugin says why", async () => {
    const victim = join(tmp.path, 'victim');
    await writeFile(victim, 'VICTIM\n', { mode: 0o600 });
    await mkdir(home, { mode: 0o755 });
    await symlink(victim, join(home, 'log'));
    await lchown(join(home, 'log'), NOBODY, NOBODY);
    await chown(home, NOBODY, NOBODY);
    await loadAndStartSupervisor();
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM\n');
    expect(await said()).toContain(`tmux-fleet: fleet home ${home} is owned by uid ${NOBODY}, not by you`);
  });

  it('a FIFO log: loading the plugin finishes, nothing waits on the FIFO', async () => {
    await mkdir(home, { mode: 0o700 });
    execFileSync('mkfifo', ['-m', '0600', join(home, 'log')]);
    await server.run(['set-option', '-g', 'status-right', '#{fleet_owner}']);
    // execFileSync's timeout kills a plugin that hangs, and the test fails; a reader lets a writer stuck on the FIFO go.
    try {
      loadPlugin();
    } finally {
      closeSync(openSync(join(home, 'log'), constants.O_RDONLY | constants.O_NONBLOCK));
    }
    await waitFor(async () => (await calls()).some((a) => a[0] === 'supervise'), 'the supervisor started', 15_000);
    // The supervisor's run-shell job does not wait on the FIFO either: the server answers, and no process holds it open.
    const holders = execFileSync('sh', ['-c', `fuser ${join(home, 'log')} 2>/dev/null || true`]).toString().trim();
    expect(holders).toBe('');
  });

  it('a home group and others can write to: no log line is written, the plugin says why', async () => {
    await mkdir(home, { mode: 0o700 });
    await chmod(home, 0o777);
    await loadAndStartSupervisor();
    expect(existsSync(join(home, 'log'))).toBe(false);
    expect(await said()).toContain(`tmux-fleet: fleet home ${home} is writable by group and others`);
  });

  it("a home that is another user's link to a private directory of ours is refused (the link's owner counts)", async () => {
    const ours = join(tmp.path, 'ours');
    await mkdir(ours, { mode: 0o700 });
    await symlink(ours, home);
    await lchown(home, NOBODY, NOBODY);
    await loadAndStartSupervisor();
    expect(existsSync(join(ours, 'log'))).toBe(false);
    expect(await said()).toContain(`tmux-fleet: fleet home ${home} is a link owned by uid ${NOBODY}`);
  });

  it('a home of ours (0700, a link of ours to it too) gets its log lines, 0600', async () => {
    const ours = join(tmp.path, 'ours');
    await mkdir(ours, { mode: 0o700 });
    await symlink(ours, home);
    await loadAndStartSupervisor();
    await waitFor(() => existsSync(join(ours, 'log')) && readFileSync(join(ours, 'log'), 'utf8').includes('fake-helper supervise'), 'log lines', 10_000);
    const text = readFileSync(join(ours, 'log'), 'utf8');
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT[\d:]+Z plugin\[\d+\]: status-right reads fleet segments/m);
    expect((await import('node:fs')).statSync(join(ours, 'log')).mode & 0o777).toBe(0o600);
  });
});

describe("what the supervisor's job prints", () => {
  it('reaches the log as log lines: time first, one line each, the last one even without its newline', async () => {
    await mkdir(home, { mode: 0o700 });
    await server.run(['set-environment', '-g', 'FAKE_HELPER_STDERR', 'one\u001b[31m line\ninvalid option: @fleet-attention']);
    loadPlugin();
    await waitFor(() => existsSync(join(home, 'log')) && readFileSync(join(home, 'log'), 'utf8').includes('@fleet-attention'), 'the job output in the log', 15_000);
    await waitFor(() => readFileSync(join(home, 'log'), 'utf8').endsWith('\n'), 'the last line ended', 15_000);
    const lines = readFileSync(join(home, 'log'), 'utf8').split('\n').slice(0, -1);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ [a-z]+\[\d+\]: /);
    expect(lines.some((l) => / supervise\[\d+\]: fake-helper supervise --socket-path \//.test(l))).toBe(true);
    expect(lines.some((l) => / supervise\[\d+\]: one\?\[31m line$/.test(l))).toBe(true);
    expect(lines.some((l) => / supervise\[\d+\]: invalid option: @fleet-attention$/.test(l))).toBe(true);
  });
});
