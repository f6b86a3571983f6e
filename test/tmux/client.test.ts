// Integration: the tmux layer against a real private server (tmux -L fleet-test-<random> -f /dev/null).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { socketFromEnv } from '../../src/context';
import { TmuxError } from '../../src/errors';
import { Tmux } from '../../src/tmux';
import { makeTempDir, type TempDir } from '../helpers/env';
import { startServer, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let tmp: TempDir;

beforeEach(async () => {
  server = await startServer();
  tmp = await makeTempDir('fleet-test-');
});

afterEach(async () => {
  await server.kill();
  await tmp.cleanup();
});

const showOption = async (tmux: Tmux, session: string, key: string) =>
  (await tmux.run(['show-options', '-v', '-t', `=${session}:`, key])).replace(/\n$/, '');

describe('exact session targets', () => {
  beforeEach(async () => {
    await server.newSession('op-ab');
    await server.run(['set-option', '-t', '=op-ab:', '@claude_session_id', 'sid-of-ab']);
  });

  it('tmux itself prefix-matches without `=` (why the layer always uses =<name>:)', async () => {
    expect(await server.run(['display-message', '-p', '-t', 'op-a', '#{session_name}'])).toBe('op-ab\n');
  });

  it('display on op-a does not read op-ab', async () => {
    expect(await server.tmux.display('op-a', '#{@claude_session_id}')).toBe('');
    expect(await server.tmux.display('op-ab', '#{@claude_session_id}')).toBe('sid-of-ab');
  });

  it('hasSession, killSession and setSessionOptions on op-a never reach op-ab', async () => {
    expect(await server.tmux.hasSession('op-a')).toBe(false);
    expect(await server.tmux.hasSession('op-ab')).toBe(true);
    await expect(server.tmux.killSession('op-a')).rejects.toBeInstanceOf(TmuxError);
    await expect(server.tmux.setSessionOptions('op-a', { '@claude_session_id': 'intruder' })).rejects.toBeInstanceOf(TmuxError);
    expect(await server.tmux.hasSession('op-ab')).toBe(true);
    expect(await showOption(server.tmux, 'op-ab', '@claude_session_id')).toBe('sid-of-ab');
  });

  it('killSession kills exactly the named session', async () => {
    await server.newSession('op-a');
    await server.tmux.killSession('op-a');
    expect(await server.tmux.hasSession('op-a')).toBe(false);
    expect(await server.tmux.hasSession('op-ab')).toBe(true);
  });
});

describe('display', () => {
  it('tmux fact: display-message -p on a missing =<name>: target prints an empty expansion and exits 0', async () => {
    // Measured on tmux 3.3a (docs/tmux.md#facts-measured-on-tmux-33a): the format is expanded without a session, so #{...}
    // parts are empty, literal text stays, and the exit code is 0. An empty answer therefore means
    // "no such session or no value"; callers must not read it as an error or as a session.
    const r = await server.tmux.tryRun(['display-message', '-p', '-t', '=missing:', 'X#{session_name}#{@spawn_nonce}Y']);
    expect(r).toEqual({ stdout: 'XY\n', stderr: '', exitCode: 0 });
    expect(await server.tmux.display('missing', '#{@spawn_nonce} #{@claude_session_id}')).toBe(' ');
    expect(await server.tmux.display('missing', '#{@spawn_nonce}')).toBe('');
  });

  it('reads several options of a session in one call, without the final newline', async () => {
    await server.newSession('op-x');
    await server.tmux.setSessionOptions('op-x', { '@spawn_nonce': 'n'.repeat(32), '@claude_session_id': 'sid-x' });
    expect(await server.tmux.display('op-x', '#{@spawn_nonce} #{@claude_session_id}')).toBe(`${'n'.repeat(32)} sid-x`);
  });
});

describe('setSessionOptions stores hostile values verbatim and runs nothing', () => {
  it('values ending in ;, holding #(...), $(...), quotes, newlines', async () => {
    await server.newSession('op-h');
    const marker = (n: number) => join(tmp.path, `ran-${n}`);
    const values: Record<string, string> = {
      '@v1': 'ends in;',
      '@v2': ';',
      '@v3': 'kill-server;',
      '@v4': 'a\\;',
      '@v5': `#(touch ${marker(5)})`,
      '@v6': `$(touch ${marker(6)})`,
      '@v7': `\`touch ${marker(7)}\``,
      '@v8': `'; run-shell "touch ${marker(8)}" ;'`,
      '@v9': `#[fg=red]#{session_name}##(touch ${marker(9)})`,
      '@v10': '-t =keeper: @stolen yes',
      '@v11': 'line one\nline two',
      '@v12': '',
      '@v13': `x ; run-shell "touch ${marker(13)}"`,
    };
    await server.tmux.setSessionOptions('op-h', values);
    for (const [k, v] of Object.entries(values)) {
      expect(await showOption(server.tmux, 'op-h', k), k).toBe(v);
    }
    // A plain read through a format substitutes the value once and does not re-expand it.
    expect(await server.tmux.display('op-h', '#{@v5}')).toBe(values['@v5']);
    expect(await server.tmux.display('op-h', '#{@v1}')).toBe('ends in;');
    // The chain was not split: the server is alive, keeper untouched.
    expect(await server.tmux.hasSession('keeper')).toBe(true);
    expect(await server.tmux.display('keeper', '#{@stolen}')).toBe('');
    // Had a value split the chain, its run-shell would have run before the call returned, as
    // this one does; no shell ever reads $(...) or backquotes (argv arrays); and #(...) runs
    // only where a format is expanded again, which the reads above would show. So no marker
    // now means nothing ran.
    const control = join(tmp.path, 'control-ran');
    await server.tmux.chain([['set-option', '-t', '=op-h:', '@control', 'x'], ['run-shell', `touch ${control}`]]);
    expect(existsSync(control)).toBe(true);
    for (const n of [5, 6, 7, 8, 9, 13]) expect(existsSync(marker(n)), marker(n)).toBe(false);
  });

  it('run() and tryRun() take every argument literally, also a trailing ;', async () => {
    await server.newSession('op-r');
    await server.tmux.run(['set-option', '-t', '=op-r:', '@a', 'v;']);
    expect(await showOption(server.tmux, 'op-r', '@a')).toBe('v;');
    const r = await server.tmux.tryRun(['set-option', '-t', '=op-r:', '@b', ';']);
    expect(r.exitCode).toBe(0);
    expect(await showOption(server.tmux, 'op-r', '@b')).toBe(';');
  });
});

describe('chain', () => {
  it('sends several commands in one call', async () => {
    await server.newSession('op-c');
    await server.tmux.chain([
      ['set-option', '-t', '=op-c:', '@a', '1'],
      ['set-option', '-t', '=op-c:', '@b', '2'],
      ['rename-session', '-t', '=op-c:', 'op-d'],
    ]);
    expect(await server.tmux.hasSession('op-c')).toBe(false);
    expect(await server.tmux.display('op-d', '#{@a}#{@b}')).toBe('12');
  });

  it('stops at the first failing command, keeps what ran before it, and throws TmuxError', async () => {
    await server.newSession('op-c');
    let caught: unknown;
    try {
      await server.tmux.chain([
        ['set-option', '-t', '=op-c:', '@a', 'first'],
        ['set-option', '-t', '=missing:', '@b', 'second'],
        ['set-option', '-t', '=op-c:', '@c', 'third'],
      ]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TmuxError);
    const err = caught as TmuxError;
    expect(err.tmuxExitCode).toBe(1);
    expect(err.stderr).toContain('=missing:');
    expect(err.message).toContain(`-L ${server.name}`);
    expect(await server.tmux.display('op-c', '#{@a}|#{@c}')).toBe('first|');
  });
});

describe('listSessions', () => {
  it('reads chosen formats of every session in one call, tab-separated for real', async () => {
    await server.newSession('alpha');
    await server.newSession('beta');
    await server.newSession('gamma');
    await server.tmux.setSessionOptions('alpha', { '@label': 'hello big  world' });
    await server.tmux.setSessionOptions('beta', { '@label': 'x;', '@fleet-task': 'fix-it' });
    const rows = await server.tmux.listSessions({
      name: '#{session_name}',
      label: '#{@label}',
      task: '#{@fleet-task}',
      windows: '#{session_windows}',
    });
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(Object.keys(byName).sort()).toEqual(['alpha', 'beta', 'gamma', 'keeper']);
    expect(byName.alpha).toEqual({ name: 'alpha', label: 'hello big  world', task: '', windows: '1' });
    expect(byName.beta).toEqual({ name: 'beta', label: 'x;', task: 'fix-it', windows: '1' });
    expect(byName.gamma).toEqual({ name: 'gamma', label: '', task: '', windows: '1' });
  });

  it('tmux fact: a \\t in a format is not a tab (why the separator is a real tab character)', async () => {
    const out = await server.run(['list-sessions', '-F', '#{session_name}\\t#{session_windows}']);
    expect(out).not.toContain('\t');
  });
});

describe('errors and server selection', () => {
  it('TmuxError with exit code and stderr when the server is missing; the message names the server', async () => {
    const name = `fleet-test-missing-${randomBytes(6).toString('hex')}`;
    const tmux = new Tmux({ name });
    let caught: unknown;
    try {
      await tmux.run(['list-sessions']);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TmuxError);
    const err = caught as TmuxError;
    expect(err.tmuxExitCode).toBe(1);
    expect(err.stderr).toMatch(/no server running|error connecting/);
    expect(err.message).toContain(`tmux server -L ${name}`);
    expect(err.message).not.toContain('\n');
    expect(err.argv).toEqual(['list-sessions']);
    expect(await tmux.serverRunning()).toBe(false);
    expect(await tmux.hasSession('keeper')).toBe(false);
  });

  it('tryRun never throws, also when tmux cannot be run at all', async () => {
    const tmux = new Tmux({ name: server.name }, join(tmp.path, 'no-such-tmux'));
    const r = await tmux.tryRun(['list-sessions']);
    expect(r.exitCode).toBe(127);
    expect(r.stderr).not.toBe('');
    await expect(tmux.run(['list-sessions'])).rejects.toBeInstanceOf(TmuxError);
  });

  it('direct (node:child_process, owner\'s one read) and execa give the same results: output, a failure, no tmux at all', async () => {
    await server.newSession('op-d');
    await server.run(['set-option', '-t', '=op-d:', '@claude_session_id', 'sid;$(x)\n#{y}']);
    const missing = `fleet-test-missing-${randomBytes(6).toString('hex')}`;
    const results = [];
    for (const direct of [false, true]) {
      const on = new Tmux({ name: server.name }, 'tmux', { direct });
      const gone = new Tmux({ name: missing }, 'tmux', { direct });
      const none = new Tmux({ name: server.name }, join(tmp.path, 'no-such-tmux'), { direct });
      const read = await on.tryRun(['display-message', '-p', '-t', '=op-d:', '#{@claude_session_id}']);
      const failed = await on.tryChain([['display-message', '-p', 'before'], ['has-session', '-t', '=no-such-session:'], ['display-message', '-p', 'after']]);
      const noServer = await gone.tryRun(['list-sessions']);
      const noTmux = await none.tryRun(['list-sessions']);
      results.push({ read, failed, noServer: { ...noServer, stderr: noServer.stderr.replace(/\s+$/, '') }, noTmux: { exitCode: noTmux.exitCode, stdout: noTmux.stdout, hasMessage: noTmux.stderr !== '' } });
    }
    expect(results[0]!.read).toEqual({ stdout: 'sid;$(x)\n#{y}\n', stderr: '', exitCode: 0 });
    expect(results[0]!.failed.exitCode).toBe(1);
    expect(results[0]!.failed.stdout).toBe('before\n');
    expect(results[0]!.noServer.exitCode).toBe(1);
    expect(results[0]!.noTmux).toEqual({ exitCode: 127, stdout: '', hasMessage: true });
    expect(results[1]).toEqual(results[0]);
  });

  it('-L picks the server: a session on one server is invisible on another', async () => {
    const other = await startServer();
    try {
      await server.newSession('only-here');
      expect(await server.tmux.hasSession('only-here')).toBe(true);
      expect(await other.tmux.hasSession('only-here')).toBe(false);
      expect(await server.tmux.serverRunning()).toBe(true);
      expect(server.tmux.socketArgs()).toEqual(['-L', server.name]);
    } finally {
      await other.kill();
    }
  });

  it('-S picks the server by socket path', async () => {
    const path = (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
    expect(path.endsWith(`/${server.name}`)).toBe(true);
    await server.newSession('by-path');
    const byPath = new Tmux({ path });
    expect(byPath.socketArgs()).toEqual(['-S', path]);
    expect(await byPath.hasSession('by-path')).toBe(true);
    expect(byPath.describeServer()).toBe(`tmux server at ${path}`);
  });

  it('TMUX_FLEET_SOCKET / TMUX_FLEET_SOCKET_PATH choose the server; flags win; a path wins over a name', () => {
    expect(socketFromEnv({})).toEqual({});
    expect(socketFromEnv({ TMUX_FLEET_SOCKET: 'n' })).toEqual({ name: 'n' });
    expect(socketFromEnv({ TMUX_FLEET_SOCKET_PATH: '/p' })).toEqual({ path: '/p' });
    expect(socketFromEnv({ TMUX_FLEET_SOCKET: 'n', TMUX_FLEET_SOCKET_PATH: '/p' })).toEqual({ path: '/p' });
    expect(socketFromEnv({ TMUX_FLEET_SOCKET_PATH: '/p' }, { name: 'flag' })).toEqual({ name: 'flag' });
    expect(socketFromEnv({ TMUX_FLEET_SOCKET: 'n' }, { path: '/flag' })).toEqual({ path: '/flag' });
  });
});
