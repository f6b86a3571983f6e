// `send` on a real private tmux server with the stand-in agent as the Driver
// (it asks for bracketed paste as the real agents do, and records each prompt
// it takes): a prompt typed as the agent takes one, a multi-line prompt as one
// message, and every refusal typing nothing (docs/ownership.md#send). The real
// agents: test/agents-real/ and test/claude/.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env';
import { makeWorld, type World } from '../helpers/stand-in-world';
import { promptTextProblem } from '../../src/actions/send';
import { registryRows } from '../helpers/registry-rows';

let w: World;
let prompts: string;

beforeEach(async () => {
  w = await makeWorld();
  prompts = join(w.fe.root, 'prompts.jsonl');
});
afterEach(async () => {
  await w.close();
});

/** The prompts the stand-in took, in order. */
async function taken(): Promise<string[]> {
  const text = await readFile(prompts, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { prompt: string }).prompt);
}

async function spawnDriver(slug: string, env: Record<string, string> = {}): Promise<string> {
  const r = await w.fleet(['spawn', slug, '--cmd', w.standInCmd({ STAND_IN_PROMPTS: prompts, ...env })]);
  expect(r.exitCode, r.stderr).toBe(0);
  return env.STAND_IN_NO_STAMP === '1' ? '' : w.waitOwner(slug);
}

describe('send', () => {
  it('types a prompt into the Driver\'s pane; a multi-line prompt (argument, --file, stdin) reaches it as one message, line breaks kept', async () => {
    await spawnDriver('s');
    const one = await w.fleet(['send', 's', 'fix the login redirect']);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^sent a one-line prompt to s's Driver in op-s \(pane %\d+\)$/);
    await waitFor(async () => (await taken()).length === 1, 'the first prompt taken');
    const multi = 'first line\n  second line, "quoted" $(not run) #(not run)\nthird; line';
    const r = await w.fleet(['send', 's', multi]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('sent a 3-line prompt');
    const file = join(w.fe.root, 'p.txt');
    await writeFile(file, 'from a file\r\nsecond\n\n');
    expect((await w.fleet(['send', 'op-s', '--file', file])).exitCode).toBe(0);
    expect((await w.fleet(['send', 's', '-'], { input: 'from stdin\nline two\n' })).exitCode).toBe(0);
    await waitFor(async () => (await taken()).length === 4, 'four prompts taken');
    expect(await taken()).toEqual(['fix the login redirect', multi, 'from a file\nsecond', 'from stdin\nline two']);
    expect((await w.server.run(['list-buffers', '-F', '#{buffer_name}'])).trim()).toBe('');
  });

  it('refuses, typing nothing: control characters, nobody owning the task, a session that is not the Driver\'s, a Driver waiting for an approval (which stays pending), an archived task, no such target', async () => {
    const sid = await spawnDriver('r');
    await spawnDriver('p', { STAND_IN_NO_STAMP: '1' });
    await w.server.newSession('loose');
    // A second session bound to task r (a reviewer's): not its Driver's.
    await w.server.newSession('review-r');
    await w.server.run(['set-option', '-t', '=review-r:', '@fleet-task', 'r']);
    const refusals: [string[], number, RegExp][] = [
      [['send', 'r', 'evil \x1b]2;title\x07 text'], 2, /the prompt holds an escape sequence \(ESC\) at character 6; only text, line breaks and tabs can be sent; nothing typed/],
      [['send', 'r', '-'], 2, /the prompt holds a NUL at character 2/],
      [['send', 'r', '  \n '], 2, /the prompt is empty/],
      [['send', 'p', 'hello'], 1, /nobody owns task p yet .*; nothing typed/],
      [['send', 'loose', 'hello'], 1, /tmux session loose is not the Driver's session of any task \(no agent stamped it, no task is bound to it\); nothing typed/],
      [['send', 'review-r', 'hello'], 1, /tmux session review-r is not the Driver's session of any task \(it shows task r, whose Driver is [0-9a-f-]+ in op-r\); send to the task's slug or its Driver's session; nothing typed/],
      [['send', 'nothing-here', 'hello'], 1, /no task, Driver's tmux session or background job is named "nothing-here"; nothing typed/],
      [['send', 'r'], 2, /missing <text>/],
    ];
    for (const [args, code, message] of refusals) {
      const r = await w.fleet(args, { input: 'a\u0000b' });
      expect(r.exitCode, args.join(' ')).toBe(code);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    // The Driver waits for a permission, as Claude Code's row says.
    await w.server.run(['send-keys', '-t', '=op-r:', '/status waiting permission prompt', 'Enter']);
    const row = async () => (await registryRows(w.fe.registry)).find((r) => r.sessionId === sid) ?? null;
    await waitFor(async () => (await row())?.status === 'waiting', 'the Driver waiting');
    const waiting = await w.fleet(['send', 'r', 'yes']);
    expect(waiting.exitCode).toBe(1);
    expect(waiting.stderr).toContain('the Driver of r: it waits (permission prompt); a prompt typed now would answer it: answer it first (tmux-fleet attention --jump); nothing typed');
    expect((await row())?.status).toBe('waiting');
    // An archived task.
    await w.server.run(['send-keys', '-t', '=op-r:', '/status idle', 'Enter']);
    await waitFor(async () => (await row())?.status === 'idle', 'the Driver idle');
    expect((await w.fleet(['done', 'r', '--yes', '--force'])).exitCode).toBe(0);
    const archived = await w.fleet(['send', 'r', 'hello']);
    expect(archived.exitCode).toBe(1);
    expect(archived.stderr).toContain('task r is archived; tmux-fleet reopen r --resume brings its Driver back; nothing typed');
    expect(await taken()).toEqual([]);
  });
});

describe('the text a prompt may be', () => {
  it.each([
    ['plain', 'hello', 'hello'],
    ['CRLF line ends and trailing breaks', 'a\r\nb\r\n\n', 'a\nb'],
    ['a tab', 'a\tb', 'a\tb'],
  ])('%s is sent', (_name, raw, want) => {
    expect(promptTextProblem(raw)).toEqual({ text: want });
  });
  it.each([
    ['a carriage return alone', 'a\rb'],
    ['DEL', 'a\u007fb'],
    ['a C1 control (CSI)', 'a\u009b2Jb'],
    ['a bell', 'a\u0007'],
  ])('%s is refused', (_name, raw) => {
    expect(promptTextProblem(raw)).toHaveProperty('problem');
  });
});
