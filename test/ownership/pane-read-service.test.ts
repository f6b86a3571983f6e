// The judge's pane read over the supervisor's socket: the protocol as tables,
// then both ends on a real Unix socket with a stand-in reader.
import { createServer } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  askPaneRead,
  parseQuestion,
  parseReply,
  servePaneReads,
  socketPathFits,
  type PaneReadReply,
  type PaneReadServer,
} from '../../src/ownership/pane-read-service';
import { paneReadSocketFile, serverSocketPath, shortHash } from '../../src/status/runtime';
import { makeTempDir, type TempDir } from '../helpers/env';
import { startServer } from '../helpers/tmux-server';

describe('parseQuestion', () => {
  const cases: [string, string, ReturnType<typeof parseQuestion>][] = [
    ['a question', '{"socketPath":"/tmp/tmux-1/default","session":"op-a"}', { socketPath: '/tmp/tmux-1/default', session: 'op-a' }],
    ['no session', '{"socketPath":"/s"}', null],
    ['an empty session', '{"socketPath":"/s","session":""}', null],
    ['a number for a session', '{"socketPath":"/s","session":7}', null],
    ['not JSON', 'display-message -p x', null],
    ['JSON null', 'null', null],
  ];
  it.each(cases)('%s', (_what, text, want) => {
    expect(parseQuestion(text)).toEqual(want);
  });
});

describe('parseReply', () => {
  const cases: [string, string, ReturnType<typeof parseReply>][] = [
    ['nonce and stamp', '{"line":"abc sid-1"}', { nonce: 'abc', stamp: 'sid-1' }],
    ['no stamp yet', '{"line":"abc "}', { nonce: 'abc', stamp: '' }],
    ['a missing session', '{"line":" "}', { nonce: '', stamp: '' }],
    ['a tmux error', '{"tmuxError":"no server running"}', { tmuxError: 'no server running' }],
    ['unavailable: read tmux yourself', '{"unavailable":"no control client"}', null],
    ['garbage', '{"line":', null],
    ['a line that is not text', '{"line":5}', null],
  ];
  it.each(cases)('%s', (_what, text, want) => {
    expect(parseReply(text)).toEqual(want);
  });
});

describe('file names', () => {
  it('shortHash: 16 hex characters, stable, different for different paths', () => {
    expect(shortHash('/tmp/tmux-0/default')).toMatch(/^[0-9a-f]{16}$/);
    expect(shortHash('/tmp/tmux-0/default')).toBe(shortHash('/tmp/tmux-0/default'));
    expect(shortHash('/tmp/tmux-0/default')).not.toBe(shortHash('/tmp/tmux-0/defaulu'));
    // FNV-1a 64 of the empty string is its offset basis.
    expect(shortHash('')).toBe('cbf29ce484222325');
  });
  it('the socket file stays short whatever the tmux socket path', () => {
    expect(paneReadSocketFile('/h', `/${'x'.repeat(500)}`)).toMatch(/^\/h\/run\/judge-[0-9a-f]{16}\.sock$/);
    expect(socketPathFits(`/${'x'.repeat(106)}`)).toBe(true);
    expect(socketPathFits(`/${'x'.repeat(107)}`)).toBe(false);
  });
});

describe('serverSocketPath', () => {
  const uid = process.getuid!();
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir('fleet-sp-');
    await mkdir(join(tmp.path, `tmux-${uid}`));
  });
  afterEach(async () => {
    await tmp.cleanup();
  });
  const cases: [string, { name?: string; path?: string }, Record<string, string>, () => string][] = [
    ['-S as given', { path: './rel/sock' }, {}, () => './rel/sock'],
    ['-L in $TMUX_TMPDIR/tmux-<uid>', { name: 'work' }, {}, () => `${tmp.path}/tmux-${uid}/work`],
    ['-L wins over $TMUX', { name: 'work' }, { TMUX: '/x/sock,1,0' }, () => `${tmp.path}/tmux-${uid}/work`],
    ['inside tmux: $TMUX', {}, { TMUX: '/x/my,sock,123,4' }, () => '/x/my,sock'],
    ['outside tmux: the default server', {}, {}, () => `${tmp.path}/tmux-${uid}/default`],
  ];
  it.each(cases)('%s', (_what, socket, env, want) => {
    expect(serverSocketPath(socket, { TMUX_TMPDIR: tmp.path, ...env })).toBe(want());
  });

  it('no tmux directory yet: unknown (null)', () => {
    expect(serverSocketPath({ name: 'work' }, { TMUX_TMPDIR: join(tmp.path, 'none') })).toBeNull();
  });

  it("is what a real server reports as #{socket_path}", async () => {
    const server = await startServer();
    try {
      const reported = (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
      expect(serverSocketPath({ name: server.name }, { TMUX_TMPDIR: process.env.TMUX_TMPDIR })).toBe(reported);
    } finally {
      await server.kill();
    }
  });
});

describe('askPaneRead / servePaneReads on a real socket', () => {
  let dir: TempDir;
  let file: string;
  let served: PaneReadServer | null = null;
  const SERVER = '/tmp/tmux-9/fleet';
  beforeEach(async () => {
    dir = await makeTempDir('fleet-pr-');
    file = join(dir.path, 'judge.sock');
  });
  afterEach(async () => {
    await served?.close();
    served = null;
    await dir.cleanup();
  });

  const serve = async (read: (session: string) => Promise<PaneReadReply>) => {
    served = await servePaneReads(file, SERVER, read);
    expect(served).not.toBeNull();
  };

  it('a read comes back; the reader is asked about the session named', async () => {
    const asked: string[] = [];
    await serve(async (s) => {
      asked.push(s);
      return { line: 'abc sid-1' };
    });
    expect(await askPaneRead(file, SERVER, 'op-a')).toEqual({ nonce: 'abc', stamp: 'sid-1' });
    expect(await askPaneRead(file, SERVER, 'op-b')).toEqual({ nonce: 'abc', stamp: 'sid-1' });
    expect(asked).toEqual(['op-a', 'op-b']);
  });

  it("a tmux error is an answer (the judge says 5), not a reason to ask tmux again", async () => {
    await serve(async () => ({ tmuxError: 'no server running' }));
    expect(await askPaneRead(file, SERVER, 'op-a')).toEqual({ tmuxError: 'no server running' });
  });

  it.each([
    ['unavailable', async (): Promise<PaneReadReply> => ({ unavailable: 'no control client' })],
    ['the reader throws', async (): Promise<PaneReadReply> => Promise.reject(new Error('boom'))],
  ])('no answer (%s) -> null', async (_what, read) => {
    await serve(read);
    expect(await askPaneRead(file, SERVER, 'op-a')).toBeNull();
  });

  it('a question about another server is refused -> null, and the reader is not asked', async () => {
    let asked = 0;
    await serve(async () => {
      asked++;
      return { line: 'abc sid-1' };
    });
    expect(await askPaneRead(file, '/tmp/tmux-9/other', 'op-a')).toBeNull();
    expect(asked).toBe(0);
  });

  it('a supervisor that never answers -> null after the timeout', async () => {
    await serve(() => new Promise(() => undefined));
    const t0 = Date.now();
    expect(await askPaneRead(file, SERVER, 'op-a', 300)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('a stale socket file (nobody listening) or none at all -> null', async () => {
    // A listener that is gone leaves its file behind.
    const s = createServer();
    await new Promise<void>((r) => s.listen(file, r));
    await new Promise<void>((r) => s.close(() => r()));
    await writeFile(join(dir.path, 'plain-file'), 'x');
    expect(await askPaneRead(file, SERVER, 'op-a', 5000)).toBeNull();
    expect(await askPaneRead(join(dir.path, 'plain-file'), SERVER, 'op-a', 5000)).toBeNull();
    expect(await askPaneRead(join(dir.path, 'missing'), SERVER, 'op-a', 5000)).toBeNull();
  });

  it('a garbage question gets no read', async () => {
    let asked = 0;
    await serve(async () => {
      asked++;
      return { line: 'x y' };
    });
    const { connect } = await import('node:net');
    const reply = await new Promise<string>((resolve) => {
      let data = '';
      const c = connect(file, () => c.write('list-sessions\n'));
      c.setEncoding('utf8');
      c.on('data', (d: string) => (data += d));
      c.on('end', () => resolve(data));
    });
    expect(JSON.parse(reply)).toEqual({ unavailable: 'not a question' });
    expect(asked).toBe(0);
  });

  it('the server takes over a stale file of its own name, and removes it when closed', async () => {
    await writeFile(file, 'stale');
    await serve(async () => ({ line: 'a b' }));
    expect(await askPaneRead(file, SERVER, 'op-a')).toEqual({ nonce: 'a', stamp: 'b' });
    await served!.close();
    served = null;
    expect(await askPaneRead(file, SERVER, 'op-a')).toBeNull();
  });

  it('a path too long for a Unix socket: nothing served, nothing asked', async () => {
    const long = join(dir.path, 'x'.repeat(120));
    expect(await servePaneReads(long, SERVER, async () => ({ line: 'a b' }))).toBeNull();
    expect(await askPaneRead(long, SERVER, 'op-a')).toBeNull();
  });
});
