// The judge's pane read through the supervisor's mailbox: the protocol as
// tables, then both ends on a real directory with a stand-in reader.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  askPaneRead,
  parseQuestion,
  parseReply,
  servePaneReads,
  type PaneReadReply,
  type PaneReadServer,
} from '../../src/ownership/pane-read-service';
import { paneReadDir, serverSocketPath } from '../../src/status/runtime';
import { makeTempDir, waitFor, type TempDir } from '../helpers/env';
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

describe('paneReadDir', () => {
  it('one mailbox per server, in the run directory', () => {
    expect(paneReadDir('/h', '/tmp/tmux-0/default')).toBe(`/h/run/pane-reads-${Buffer.from('/tmp/tmux-0/default').toString('base64url')}`);
    expect(paneReadDir('/h', '/tmp/tmux-0/a')).not.toBe(paneReadDir('/h', '/tmp/tmux-0/b'));
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

describe('askPaneRead / servePaneReads on a real directory', () => {
  let dir: TempDir;
  let box: string;
  let served: PaneReadServer | null = null;
  const SERVER = '/tmp/tmux-9/fleet';
  beforeEach(async () => {
    dir = await makeTempDir('fleet-pr-');
    box = join(dir.path, 'pane-reads');
  });
  afterEach(async () => {
    await served?.close();
    served = null;
    await dir.cleanup();
  });

  const serve = async (read: (session: string) => Promise<PaneReadReply>) => {
    served = await servePaneReads(box, SERVER, read);
  };

  it('a read comes back; the reader is asked about the session named; nothing is left behind', async () => {
    const asked: string[] = [];
    await serve(async (s) => {
      asked.push(s);
      return { line: 'abc sid-1' };
    });
    expect(await askPaneRead(box, SERVER, 'op-a')).toEqual({ nonce: 'abc', stamp: 'sid-1' });
    expect(await askPaneRead(box, SERVER, 'op-b')).toEqual({ nonce: 'abc', stamp: 'sid-1' });
    expect(asked).toEqual(['op-a', 'op-b']);
    expect(await readdir(box)).toEqual([]);
  });

  it('many askers at once each get their own answer', async () => {
    await serve(async (s) => ({ line: `nonce-${s} sid-${s}` }));
    const sessions = Array.from({ length: 20 }, (_, i) => `op-${i}`);
    const answers = await Promise.all(sessions.map((s) => askPaneRead(box, SERVER, s)));
    expect(answers).toEqual(sessions.map((s) => ({ nonce: `nonce-${s}`, stamp: `sid-${s}` })));
  });

  it('a tmux error is an answer (the judge says 5), not a reason to ask tmux again', async () => {
    await serve(async () => ({ tmuxError: 'no server running' }));
    expect(await askPaneRead(box, SERVER, 'op-a')).toEqual({ tmuxError: 'no server running' });
  });

  it.each([
    ['unavailable', async (): Promise<PaneReadReply> => ({ unavailable: 'no control client' })],
    ['the reader throws', async (): Promise<PaneReadReply> => Promise.reject(new Error('boom'))],
  ])('no answer (%s) -> null', async (_what, read) => {
    await serve(read);
    expect(await askPaneRead(box, SERVER, 'op-a')).toBeNull();
  });

  it('a question about another server is refused -> null, and the reader is not asked', async () => {
    let asked = 0;
    await serve(async () => {
      asked++;
      return { line: 'abc sid-1' };
    });
    expect(await askPaneRead(box, '/tmp/tmux-9/other', 'op-a')).toBeNull();
    expect(asked).toBe(0);
  });

  it('a supervisor that never answers -> null after the timeout, and the question is taken back', async () => {
    await serve(() => new Promise(() => undefined));
    const t0 = Date.now();
    expect(await askPaneRead(box, SERVER, 'op-a', 300)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await readdir(box)).filter((n) => n.endsWith('.q'))).toEqual([]);
  });

  it('a mailbox nobody watches -> null after the timeout; no mailbox at all -> null at once', async () => {
    await mkdir(box);
    expect(await askPaneRead(box, SERVER, 'op-a', 300)).toBeNull();
    expect(await readdir(box)).toEqual([]);
    expect(await askPaneRead(join(dir.path, 'missing'), SERVER, 'op-a', 60_000)).toBeNull();
  });

  it('a garbage question gets no read and an "unavailable" answer', async () => {
    let asked = 0;
    await serve(async () => {
      asked++;
      return { line: 'x y' };
    });
    await writeFile(join(box, 'junk-1.q'), 'list-sessions');
    await waitFor(() => existsSync(join(box, 'junk-1.a')), 'the answer to junk');
    expect(JSON.parse(await readFile(join(box, 'junk-1.a'), 'utf8'))).toEqual({ unavailable: 'not a question' });
    expect(asked).toBe(0);
  });

  it('starting empties the mailbox; sweep removes what abandoned askers left; close removes it', async () => {
    await mkdir(box);
    await writeFile(join(box, 'old-1.a'), '{"line":"stale answer"}');
    await serve(async () => ({ line: 'a b' }));
    expect(await readdir(box)).toEqual([]);
    await writeFile(join(box, 'gone-1.a'), '{}');
    await writeFile(join(box, 'fresh-1.a'), '{}');
    const old = new Date(Date.now() - 60_000);
    await utimes(join(box, 'gone-1.a'), old, old);
    served!.sweep();
    expect(await readdir(box)).toEqual(['fresh-1.a']);
    await served!.close();
    served = null;
    expect(existsSync(box)).toBe(false);
    expect(await askPaneRead(box, SERVER, 'op-a', 60_000)).toBeNull();
  });
});
