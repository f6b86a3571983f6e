// The plugin's shell side under hostile values: a copy of the plugin (with the
// stand-in helper that records its argv) run the way TPM runs it, on a private
// server, keys pressed on a real attached client.
// - A session option set by hand (`@fleet-task`, `@claude_session_id`) with a
//   newline: tmux 3.3a's #{q:} does not escape newlines, so a value expanded
//   into a run-shell command line would run its second line.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, sleep, waitFor, type TempDir } from '../helpers/env';
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
function loadPlugin(env: Record<string, string> = {}, timeoutMs = 20_000): void {
  const socketPath = execFileSync('tmux', ['-L', server.name, 'display-message', '-p', '#{socket_path},#{pid},0']).toString().trim();
  execFileSync(join(plugin, 'tmux-plugin.tmux'), [], {
    env: { ...cleanEnv(), TMUX_FLEET_HOME: home, ...env, TMUX: socketPath } as NodeJS.ProcessEnv,
    timeout: timeoutMs,
    stdio: 'ignore',
  });
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
    await client.outer.run(['send-keys', '-t', '=view:', 'C-b', 'O']);
    await client.waitForStatus(says, 10_000, true);
    await sleep(500);
    expect(existsSync(marker)).toBe(false);
    // The helper was never handed the value as an argument (an option or a slug it would have to refuse).
    for (const argv of await calls()) expect(argv.join(' ')).not.toContain(script);
  });

  it('a task that is not a slug (an option, say) is named as such, never passed on', async () => {
    loadPlugin();
    await server.run(['set-option', '-t', '=keeper:', '@fleet-task', '--home=/tmp/x']);
    await server.run(['set-option', '-t', '=keeper:', '@claude_session_id', 'sid-1']);
    client = await attachStatusClient(server, 'keeper', 200);
    await client.outer.run(['send-keys', '-t', '=view:', 'C-b', 'O']);
    await client.waitForStatus('is not a task slug', 10_000, true);
    expect((await calls()).filter((a) => a[0] === 'owner')).toEqual([]);
  });

  it('a proper task and stamp still reach the helper as arguments', async () => {
    loadPlugin();
    await server.run(['set-option', '-t', '=keeper:', '@fleet-task', 'task1']);
    await server.run(['set-option', '-t', '=keeper:', '@claude_session_id', 'sid-1']);
    client = await attachStatusClient(server, 'keeper', 200);
    await client.outer.run(['send-keys', '-t', '=view:', 'C-b', 'O']);
    await client.waitForStatus('fake-helper owner task1 --as sid-1', 10_000, true);
    await waitFor(async () => (await calls()).some((a) => a[0] === 'owner'), 'owner called');
    expect((await calls()).find((a) => a[0] === 'owner')).toEqual(['owner', 'task1', '--as', 'sid-1']);
  });
});
