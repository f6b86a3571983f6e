// The control-mode client: quoting and the reply parser as tables, then a real
// client on a private server.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient, ControlParser, controlLine, quoteControlArg, runChainVia, type ControlEvent } from '../../src/tmux/control';
import { NONCE_STAMP_FORMAT } from '../../src/tmux/ownership-reads';
import { Tmux } from '../../src/tmux';
import { makeTempDir, waitFor } from '../helpers/env';
import { startServer, type TestServer } from '../helpers/tmux-server';

describe('quoteControlArg / controlLine', () => {
  const args: [string, string | null][] = [
    ['plain', "'plain'"],
    ['', "''"],
    ['=op-a:', "'=op-a:'"],
    [NONCE_STAMP_FORMAT, `'${NONCE_STAMP_FORMAT}'`],
    ['a ; b', "'a ; b'"],
    ['a;', "'a;'"],
    ['$(touch x) `id` ~ $HOME #(id) {', "'$(touch x) `id` ~ $HOME #(id) {'"],
    ["it's", null],
    ['back\\slash', null],
    ['new\nline', null],
    ['tab\there', "'tab\there'"],
    ['nul\u0000', null],
    ['del\u007f', null],
  ];
  it.each(args)('%j -> %j', (arg, quoted) => {
    expect(quoteControlArg(arg)).toBe(quoted);
  });

  it('joins commands with a lone ;', () => {
    expect(controlLine([['display-message', '-p', 'x'], ['list-sessions']])).toBe("'display-message' '-p' 'x' ; 'list-sessions'");
  });
  it.each([
    ['no command', []],
    ['an empty command', [[]]],
    ['one bad argument anywhere', [['display-message', '-p', 'ok'], ['set-option', '@x', "it's"]]],
  ])('%s -> null (the caller runs tmux with argv instead)', (_what, commands) => {
    expect(controlLine(commands)).toBeNull();
  });
});

describe('ControlParser', () => {
  const feed = (lines: string[]): ControlEvent[] => {
    const p = new ControlParser();
    return lines.map((l) => p.line(l)).filter((e): e is ControlEvent => e !== null);
  };
  const cases: [string, string[], ControlEvent[]][] = [
    ['the attach block (flags 0) is not a reply', ['%begin 1 10 0', '%end 1 10 0'], []],
    ['our block with output', ['%begin 1 11 1', 'a b', '', '%end 1 11 1'], [{ kind: 'reply', ok: true, lines: ['a b', ''] }]],
    ['our block without output', ['%begin 1 12 1', '%end 1 12 1'], [{ kind: 'reply', ok: true, lines: [] }]],
    ['an error', ['%begin 1 13 1', 'parse error: unknown command: x', '%error 1 13 1'], [{ kind: 'reply', ok: false, lines: ['parse error: unknown command: x'] }]],
    [
      'output that looks like a guard of another command stays output',
      ['%begin 1 14 1', '%end 1 99 1', '%begin 1 15 1', '%exit', '%end 1 14 1'],
      [{ kind: 'reply', ok: true, lines: ['%end 1 99 1', '%begin 1 15 1', '%exit'] }],
    ],
    ['notifications between blocks are skipped', ['%session-changed $1 a', '%sessions-changed', '%window-add @3'], []],
    ['exit', ['%exit'], [{ kind: 'exit', reason: 'control client detached' }]],
    ['exit with a reason', ['%exit server exited'], [{ kind: 'exit', reason: 'server exited' }]],
    [
      'replies in order',
      ['%begin 1 20 1', 'one', '%end 1 20 1', '%begin 1 21 1', 'two', '%error 1 21 1'],
      [
        { kind: 'reply', ok: true, lines: ['one'] },
        { kind: 'reply', ok: false, lines: ['two'] },
      ],
    ],
  ];
  it.each(cases)('%s', (_what, lines, events) => {
    expect(feed(lines)).toEqual(events);
  });
});

describe('ControlClient on a real server', () => {
  let server: TestServer;
  let client: ControlClient | null = null;
  const nonceStamp = (session: string) => ['display-message', '-p', '-t', `=${session}:`, NONCE_STAMP_FORMAT];
  const ok = (stdout: string) => ({ stdout, stderr: '', exitCode: 0 });
  beforeEach(async () => {
    server = await startServer();
    await server.newSession('held');
    await server.newSession('op-x');
    await server.run(['set-option', '-t', '=op-x:', '@spawn_nonce', 'n'.repeat(32)]);
    await server.run(['set-option', '-t', '=op-x:', '@claude_session_id', 'sid-x']);
  });
  afterEach(async () => {
    client?.close();
    client = null;
    await server.kill();
  });

  it("reads a session's nonce and stamp, and an empty line for a missing session", async () => {
    client = await ControlClient.start(server.tmux, 'held');
    expect(await runChainVia(client, [nonceStamp('op-x')])).toEqual(ok(`${'n'.repeat(32)} sid-x\n`));
    // Exact target: `op` is a prefix of op-x and must not match it.
    expect(await runChainVia(client, [nonceStamp('op')])).toEqual(ok(' \n'));
    const clients = await server.run(['list-clients', '-F', '#{client_control_mode} #{session_name}']);
    expect(clients.trim()).toBe('1 held');
  });

  it('runChainVia gives what the same chain run as a tmux process gives', async () => {
    client = await ControlClient.start(server.tmux, 'held');
    const chains: string[][][] = [
      [nonceStamp('op-x')],
      [nonceStamp('missing')],
      [['list-sessions', '-F', '#{session_name}\t#{@claude_session_id}']],
      [nonceStamp('op-x'), ['display-message', '-p', '-t', '=held:', '#{session_name};']],
      // Stops at the first failure, keeping what ran before it.
      [nonceStamp('op-x'), ['display-message', '-p', '-t', '%999', '#{pane_id}'], nonceStamp('held')],
    ];
    for (const chain of chains) {
      const viaControl = await runChainVia(client, chain);
      const viaProcess = await server.tmux.tryChain(chain);
      expect(viaControl && { stdout: viaControl.stdout, failed: viaControl.exitCode !== 0 }).toEqual({ stdout: viaProcess.stdout, failed: viaProcess.exitCode !== 0 });
      if (viaProcess.exitCode !== 0) expect(viaControl!.stderr.trim()).toBe(viaProcess.stderr.trim());
    }
  });

  it('a command that cannot be quoted is not sent (null: run tmux instead)', async () => {
    client = await ControlClient.start(server.tmux, 'held');
    expect(await runChainVia(client, [['display-message', '-p', "it's"]])).toBeNull();
    expect(await runChainVia(client, [['display-message', '-p', 'two\nlines']])).toBeNull();
    expect(await runChainVia(client, [])).toBeNull();
  });

  it('a command tmux refuses comes back as a failure with its message', async () => {
    client = await ControlClient.start(server.tmux, 'held');
    const r = await client.run("'no-such-command' 'x'");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/unknown command/);
    // The client still works after it.
    expect(await runChainVia(client, [nonceStamp('op-x')])).toEqual(ok(`${'n'.repeat(32)} sid-x\n`));
  });

  it('hostile values go through the quoting literally, and nothing runs', async () => {
    const dir = await makeTempDir('fleet-control-');
    const marker = join(dir.path, 'ran');
    const value = `a ; b $(touch ${marker}) \`touch ${marker}\` #(touch ${marker}) ~ $HOME {`;
    client = await ControlClient.start(server.tmux, 'held');
    const line = controlLine([['set-option', '-t', '=op-x:', '@fleet-probe', value]]);
    expect(line).not.toBeNull();
    expect((await client.run(line!)).exitCode).toBe(0);
    expect((await server.run(['show-options', '-v', '-t', '=op-x:', '@fleet-probe'])).replace(/\n$/, '')).toBe(value);
    expect(existsSync(marker)).toBe(false);
    await dir.cleanup();
  });

  it('goes away when its session closes: waiting and later commands fail with 127', async () => {
    client = await ControlClient.start(server.tmux, 'held');
    expect(await runChainVia(client, [nonceStamp('op-x')])).not.toBeNull();
    await server.run(['kill-session', '-t', '=held:']);
    await waitFor(() => !client!.alive, 'control client gone');
    expect(await runChainVia(client, [nonceStamp('op-x')])).toBeNull();
    expect((await client.run("'list-sessions'")).exitCode).toBe(127);
  });

  it('a server that is gone stays gone: starting a client does not start one', async () => {
    const name = `${server.name}-none`;
    const gone = new Tmux({ name });
    client = await ControlClient.start(gone, 'keeper');
    await waitFor(() => !client!.alive, 'control client gone');
    expect((await gone.tryRun(['list-sessions'])).exitCode).not.toBe(0);
    expect(existsSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid!()}`, name))).toBe(false);
  });

  it('attaching to a missing session ends the client, without throwing; later commands fail with 127', async () => {
    client = await ControlClient.start(server.tmux, 'no-such-session');
    await waitFor(() => !client!.alive, 'control client gone');
    expect((await client.run("'list-sessions'")).exitCode).toBe(127);
  });
});
