// tmux reads made by the supervisor through its mailbox: the protocol as
// tables, then both ends on a real directory with a stand-in runner.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SupervisedReads,
  askReads,
  isReadCommand,
  parseAnswer,
  parseQuestion,
  serveReads,
  type ReadsServer,
} from '../../src/status/read-mailbox';
import { readMailboxDir, serverSocketPath } from '../../src/status/runtime';
import type { TmuxReads, TmuxResult } from '../../src/tmux';
import { makeTempDir, waitFor, type TempDir } from '../helpers/env';
import { startServer } from '../helpers/tmux-server';

const READ = ['display-message', '-p', '-t', '=op-a:', '#{@spawn_nonce} #{@claude_session_id}'];

describe('parseQuestion', () => {
  const cases: [string, string, ReturnType<typeof parseQuestion>][] = [
    ['one command', JSON.stringify({ socketPath: '/s', commands: [READ] }), { socketPath: '/s', commands: [READ] }],
    ['two commands', JSON.stringify({ socketPath: '/s', commands: [READ, ['list-sessions']] }), { socketPath: '/s', commands: [READ, ['list-sessions']] }],
    ['no commands', JSON.stringify({ socketPath: '/s', commands: [] }), null],
    ['too many commands', JSON.stringify({ socketPath: '/s', commands: [READ, READ, READ, READ, READ] }), null],
    ['an empty command', JSON.stringify({ socketPath: '/s', commands: [[]] }), null],
    ['an argument that is not text', JSON.stringify({ socketPath: '/s', commands: [['display-message', 5]] }), null],
    ['no socket path', JSON.stringify({ commands: [READ] }), null],
    ['not JSON', 'display-message -p x', null],
    ['JSON null', 'null', null],
  ];
  it.each(cases)('%s', (_what, text, want) => {
    expect(parseQuestion(text)).toEqual(want);
  });
});

describe('isReadCommand: only reads are answered', () => {
  const cases: [string[], boolean][] = [
    [READ, true],
    [['list-sessions', '-F', '#{session_name}'], true],
    [['display-message', 'hello'], false],
    [['set-option', '-t', '=a:', '@x', '1'], false],
    [['kill-server'], false],
    [['run-shell', 'touch x'], false],
    [['display-message', '-p', '#(touch x)'], false],
    [['list-sessions', '-F', '#{session_name} #(id)'], false],
  ];
  it.each(cases)('%j -> %s', (command, read) => {
    expect(isReadCommand(command)).toBe(read);
  });
});

describe('parseAnswer', () => {
  const cases: [string, string, ReturnType<typeof parseAnswer>][] = [
    ['output', '{"stdout":"abc sid-1\\n","stderr":"","exitCode":0}', { stdout: 'abc sid-1\n', stderr: '', exitCode: 0 }],
    ['a tmux error', '{"stdout":"","stderr":"no server running","exitCode":1}', { stdout: '', stderr: 'no server running', exitCode: 1 }],
    ['unavailable: run tmux yourself', '{"unavailable":"no control client"}', null],
    ['garbage', '{"stdout":', null],
    ['a field of the wrong type', '{"stdout":"x","stderr":"","exitCode":"0"}', null],
  ];
  it.each(cases)('%s', (_what, text, want) => {
    expect(parseAnswer(text)).toEqual(want);
  });
});

describe('readMailboxDir', () => {
  it('one mailbox per server, in the run directory', () => {
    expect(readMailboxDir('/h', '/tmp/tmux-0/default')).toBe(`/h/run/reads-${Buffer.from('/tmp/tmux-0/default').toString('base64url')}`);
    expect(readMailboxDir('/h', '/tmp/tmux-0/a')).not.toBe(readMailboxDir('/h', '/tmp/tmux-0/b'));
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

describe('askReads / serveReads on a real directory', () => {
  let dir: TempDir;
  let box: string;
  let served: ReadsServer | null = null;
  const SERVER = '/tmp/tmux-9/fleet';
  const out = (stdout: string): TmuxResult => ({ stdout, stderr: '', exitCode: 0 });
  beforeEach(async () => {
    dir = await makeTempDir('fleet-rm-');
    box = join(dir.path, 'reads');
  });
  afterEach(async () => {
    await served?.close();
    served = null;
    await dir.cleanup();
  });

  const serve = async (run: (commands: string[][]) => Promise<TmuxResult | null>) => {
    served = await serveReads(box, SERVER, run);
  };

  it('an answer comes back; the runner gets the commands asked; nothing is left behind', async () => {
    const asked: string[][][] = [];
    await serve(async (c) => {
      asked.push(c);
      return out('abc sid-1\n');
    });
    expect(await askReads(box, SERVER, [READ])).toEqual(out('abc sid-1\n'));
    expect(await askReads(box, SERVER, [READ, ['list-sessions']])).toEqual(out('abc sid-1\n'));
    expect(asked).toEqual([[READ], [READ, ['list-sessions']]]);
    expect(await readdir(box)).toEqual([]);
  });

  it('many askers at once each get their own answer', async () => {
    await serve(async (c) => out(`${c[0]![3]}\n`));
    const targets = Array.from({ length: 20 }, (_, i) => `=op-${i}:`);
    const answers = await Promise.all(targets.map((t) => askReads(box, SERVER, [['display-message', '-p', '-t', t, 'x']])));
    expect(answers).toEqual(targets.map((t) => out(`${t}\n`)));
  });

  it('a tmux failure is an answer, not a reason to run tmux again', async () => {
    await serve(async () => ({ stdout: '', stderr: 'no server running', exitCode: 1 }));
    expect(await askReads(box, SERVER, [READ])).toEqual({ stdout: '', stderr: 'no server running', exitCode: 1 });
  });

  it.each([
    ['the runner cannot', async (): Promise<TmuxResult | null> => null],
    ['the runner throws', async (): Promise<TmuxResult | null> => Promise.reject(new Error('boom'))],
  ])('no answer (%s) -> null', async (_what, run) => {
    await serve(run);
    expect(await askReads(box, SERVER, [READ])).toBeNull();
  });

  it('a question about another server, or one that is not a read, is refused -> null, and nothing runs', async () => {
    let asked = 0;
    await serve(async () => {
      asked++;
      return out('x\n');
    });
    expect(await askReads(box, '/tmp/tmux-9/other', [READ])).toBeNull();
    expect(await askReads(box, SERVER, [READ, ['kill-server']])).toBeNull();
    expect(await askReads(box, SERVER, [['display-message', 'shown on a client']])).toBeNull();
    expect(asked).toBe(0);
  });

  it('a supervisor that never answers -> null after the timeout, and the question is taken back', async () => {
    await serve(() => new Promise(() => undefined));
    const t0 = Date.now();
    expect(await askReads(box, SERVER, [READ], 300)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await readdir(box)).filter((n) => n.endsWith('.q'))).toEqual([]);
  });

  it('a mailbox nobody watches -> null after the timeout; no mailbox at all -> null at once', async () => {
    await mkdir(box);
    expect(await askReads(box, SERVER, [READ], 300)).toBeNull();
    expect(await readdir(box)).toEqual([]);
    expect(await askReads(join(dir.path, 'missing'), SERVER, [READ], 60_000)).toBeNull();
  });

  it('a garbage question runs nothing and gets an "unavailable" answer', async () => {
    let asked = 0;
    await serve(async () => {
      asked++;
      return out('x\n');
    });
    await writeFile(join(box, 'junk-1.q'), 'list-sessions');
    await waitFor(() => existsSync(join(box, 'junk-1.a')), 'the answer to junk');
    expect(JSON.parse(await readFile(join(box, 'junk-1.a'), 'utf8'))).toEqual({ unavailable: 'not a question' });
    expect(asked).toBe(0);
  });

  it('starting empties the mailbox; sweep removes what abandoned askers left; close removes it', async () => {
    await mkdir(box);
    await writeFile(join(box, 'old-1.a'), '{}');
    await serve(async () => out('a b\n'));
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
    expect(await askReads(box, SERVER, [READ], 60_000)).toBeNull();
  });

  describe('SupervisedReads', () => {
    /** A direct reader that records what reached it. */
    const direct = () => {
      const calls: string[][][] = [];
      const reads: TmuxReads = {
        tryRun: async (args) => reads.tryChain([args]),
        tryChain: async (c) => {
          calls.push(c.map((x) => [...x]));
          return out('direct\n');
        },
      };
      return { calls, reads };
    };

    it('reads go to the supervisor; what it does not take goes to tmux directly', async () => {
      await serve(async () => out('supervised\n'));
      const d = direct();
      let located = 0;
      const reads = new SupervisedReads(() => {
        located++;
        return { dir: box, socketPath: SERVER };
      }, d.reads);
      expect(await reads.tryRun(READ)).toEqual(out('supervised\n'));
      expect(await reads.tryChain([READ, ['list-sessions']])).toEqual(out('supervised\n'));
      // Not a read: never sent to the supervisor.
      expect(await reads.tryRun(['set-option', '-t', '=a:', '@x', '1'])).toEqual(out('direct\n'));
      expect(d.calls).toEqual([[['set-option', '-t', '=a:', '@x', '1']]]);
      expect(located).toBe(1);
    });

    it('no supervisor: tmux directly, and the mailbox is looked for once', async () => {
      const d = direct();
      let located = 0;
      const reads = new SupervisedReads(() => {
        located++;
        return null;
      }, d.reads);
      expect(await reads.tryRun(READ)).toEqual(out('direct\n'));
      expect(await reads.tryRun(READ)).toEqual(out('direct\n'));
      expect(located).toBe(1);
      expect(d.calls).toHaveLength(2);
    });

    it('after one unanswered question the supervisor is not asked again', async () => {
      let asked = 0;
      await serve(async () => {
        asked++;
        return null;
      });
      const d = direct();
      const reads = new SupervisedReads(() => ({ dir: box, socketPath: SERVER }), d.reads);
      expect(await reads.tryRun(READ)).toEqual(out('direct\n'));
      expect(await reads.tryRun(READ)).toEqual(out('direct\n'));
      expect(asked).toBe(1);
    });

    it('a command that never needs a read never looks for the supervisor', async () => {
      let located = 0;
      new SupervisedReads(() => {
        located++;
        return null;
      }, direct().reads);
      expect(located).toBe(0);
    });
  });
});
