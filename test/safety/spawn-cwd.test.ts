// spawn --cwd with characters tmux would read its own way: tmux 3.3a expands
// `#[` in a start directory even when doubled, and once started the agent in
// the server's own directory while task.json recorded the path. Refused now;
// and every spawn checks where tmux really started the agent.
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDirectoryProblem } from '../../src/ownership/spawn';
import { makeWorld, type World } from '../helpers/stand-in-world';

describe('startDirectoryProblem', () => {
  it.each<[string, boolean]>([
    ['/tmp/plain', false],
    ['/tmp/with space', false],
    ["/tmp/it's", false],
    ['/tmp/d#[x]', true],
    ['/tmp/#(touch x)', true],
    ['/tmp/a\nb', true],
  ])('%j refused: %s', (dir, refused) => {
    expect(startDirectoryProblem(dir) !== null).toBe(refused);
  });
});

describe('spawn --cwd on a real server', () => {
  let w: World;
  beforeAll(async () => {
    w = await makeWorld();
  });
  afterAll(async () => w?.close());

  it('a directory holding #[ is refused with one line, and nothing is made', async () => {
    const dir = join(w.fe.root, 'd#[x]');
    await mkdir(dir);
    const r = await w.fleet(['spawn', 'hash', '--cwd', dir, '--cmd', w.standInCmd({ STAND_IN_NO_STAMP: '1' })]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('holds a #');
    expect((await w.server.tmux.tryRun(['has-session', '-t', '=op-hash'])).exitCode).not.toBe(0);
    expect(existsSync(w.taskPath('hash'))).toBe(false);
  });

  it("a directory with spaces and a quote: the agent's pane is in it, as task.json records", async () => {
    const dir = join(w.fe.root, "with space's dir");
    await mkdir(dir);
    const r = await w.fleet(['spawn', 'spaced', '--cwd', dir, '--cmd', w.standInCmd({ STAND_IN_NO_STAMP: '1' })]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await w.readTask('spaced')).cwd).toBe(dir);
    expect(await w.display('op-spaced', '#{pane_current_path}')).toBe(dir);
  });
});
