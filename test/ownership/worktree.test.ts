// createTaskWorktree / removeTaskWorktree on real temp git repositories.
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, initRepo } from '../helpers/git';
import { FleetError, UsageError } from '../../src/errors';
import { createTaskWorktree, removeTaskWorktree, taskWorktreePath } from '../../src/ownership/worktree';
import { makeTempDir, type TempDir } from '../helpers/env';



async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/** What "nothing left behind" is checked against. */
async function repoState(repo: string) {
  return {
    worktrees: await git(repo, 'worktree', 'list', '--porcelain'),
    branches: await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads'),
    status: await git(repo, 'status', '--porcelain'),
  };
}

let tmp: TempDir;
let repo: string;
let home: string;
let first: string;
let second: string;

beforeEach(async () => {
  tmp = await makeTempDir('fleet-wt-');
  repo = join(tmp.path, 'repo');
  home = join(tmp.path, 'home');
  await initRepo(repo, 'a.txt', 'one\n', 'first');
  first = (await git(repo, 'rev-parse', 'HEAD')).trim();
  await git(repo, 'branch', 'release');
  await writeFile(join(repo, 'b.txt'), 'two\n');
  await git(repo, 'add', 'b.txt');
  await git(repo, 'commit', '-qm', 'second');
  second = (await git(repo, 'rev-parse', 'HEAD')).trim();
});

afterEach(async () => {
  await tmp.cleanup();
});

describe('createTaskWorktree', () => {
  it('makes fleet/<slug> from HEAD in <home>/worktrees/<slug>', async () => {
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'alpha', home });
    expect(w.worktree).toBe(join(home, 'worktrees', 'alpha'));
    expect(w.worktree).toBe(taskWorktreePath(home, 'alpha'));
    expect(w.branch).toBe('fleet/alpha');
    expect(w.base).toBe('main');
    expect(w.baseCommit).toBe(second);
    expect(w.repo).toBe(await git(repo, 'rev-parse', '--show-toplevel'));
    expect((await git(w.worktree, 'rev-parse', 'HEAD')).trim()).toBe(second);
    expect((await git(w.worktree, 'symbolic-ref', '--short', 'HEAD')).trim()).toBe('fleet/alpha');
    expect(await readFile(join(w.worktree, 'b.txt'), 'utf8')).toBe('two\n');
    expect(await git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${w.worktree}\n`);
    // The main checkout is untouched.
    expect((await git(repo, 'symbolic-ref', '--short', 'HEAD')).trim()).toBe('main');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('makes it from --base, recording the base as given', async () => {
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'beta', home, base: 'release' });
    expect(w.base).toBe('release');
    expect(w.baseCommit).toBe(first);
    expect((await git(w.worktree, 'rev-parse', 'HEAD')).trim()).toBe(first);
    expect(await exists(join(w.worktree, 'b.txt'))).toBe(false);
    const byCommit = await createTaskWorktree({ repoCwd: repo, slug: 'gamma', home, base: first.slice(0, 10) });
    expect(byCommit.base).toBe(first.slice(0, 10));
    expect(byCommit.baseCommit).toBe(first);
  });

  it('works from a subdirectory of the repository', async () => {
    await mkdir(join(repo, 'sub', 'deeper'), { recursive: true });
    const w = await createTaskWorktree({ repoCwd: join(repo, 'sub', 'deeper'), slug: 'delta', home });
    expect(w.baseCommit).toBe(second);
  });

  it("defaults to the main checkout's HEAD, not the HEAD of the linked worktree it runs in", async () => {
    const parent = await createTaskWorktree({ repoCwd: repo, slug: 'parent', home });
    await writeFile(join(parent.worktree, 'p.txt'), 'parent work\n');
    await git(parent.worktree, 'add', 'p.txt');
    await git(parent.worktree, 'commit', '-qm', 'unmerged parent work');
    const child = await createTaskWorktree({ repoCwd: parent.worktree, slug: 'child', home });
    expect(child.base).toBe('main');
    expect(child.baseCommit).toBe(second);
    expect(await exists(join(child.worktree, 'p.txt'))).toBe(false);
  });

  it('records the commit as base when the main checkout is detached', async () => {
    await git(repo, 'checkout', '-q', '--detach', first);
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'det', home });
    expect(w.base).toBe(first);
    expect(w.baseCommit).toBe(first);
  });

  it('keeps odd characters of the home path verbatim (argv, no shell)', async () => {
    const oddHome = join(tmp.path, `h o'm"e $(touch pwned)`);
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'odd', home: oddHome });
    expect(w.worktree).toBe(join(oddHome, 'worktrees', 'odd'));
    expect(await readFile(join(w.worktree, 'a.txt'), 'utf8')).toBe('one\n');
    expect(await exists(join(repo, 'pwned'))).toBe(false);
    expect(await exists('pwned')).toBe(false);
  });
});

describe('createTaskWorktree refuses and leaves nothing behind', () => {
  it('outside a git repository', async () => {
    const plain = join(tmp.path, 'plain');
    await mkdir(plain);
    const err = await createTaskWorktree({ repoCwd: plain, slug: 'x', home }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/not inside a git repository/);
    expect((err as Error).message).toContain(plain);
    expect(await exists(join(home, 'worktrees'))).toBe(false);
    expect(await exists(home)).toBe(false);
  });

  it('when the branch already exists', async () => {
    await git(repo, 'branch', 'fleet/taken', first);
    const before = await repoState(repo);
    const err = await createTaskWorktree({ repoCwd: repo, slug: 'taken', home }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FleetError);
    expect((err as Error).message).toMatch(/branch fleet\/taken already exists/);
    expect(await repoState(repo)).toEqual(before);
    expect(await exists(join(home, 'worktrees', 'taken'))).toBe(false);
    // The existing branch is not touched.
    expect((await git(repo, 'rev-parse', 'fleet/taken')).trim()).toBe(first);
  });

  it('when the worktree path already exists', async () => {
    const path = join(home, 'worktrees', 'there');
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'keep.txt'), 'mine\n');
    const before = await repoState(repo);
    const err = await createTaskWorktree({ repoCwd: repo, slug: 'there', home }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FleetError);
    expect((err as Error).message).toContain(`${path} already exists`);
    expect(await repoState(repo)).toEqual(before);
    expect(await readdir(path)).toEqual(['keep.txt']);
    expect(await readFile(join(path, 'keep.txt'), 'utf8')).toBe('mine\n');
  });

  it('when the worktree is made twice for one slug', async () => {
    await createTaskWorktree({ repoCwd: repo, slug: 'twice', home });
    const before = await repoState(repo);
    const err = await createTaskWorktree({ repoCwd: repo, slug: 'twice', home }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FleetError);
    expect(await repoState(repo)).toEqual(before);
  });

  it.each([['no-such-ref'], ['--output=/tmp/x'], ['$(id)'], ['']])('for the base %j', async (base) => {
    const before = await repoState(repo);
    const err = await createTaskWorktree({ repoCwd: repo, slug: 'badbase', home, base }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/--base/);
    expect(await repoState(repo)).toEqual(before);
    expect(await exists(join(home, 'worktrees'))).toBe(false);
  });

  it('for a slug that is not one', async () => {
    const before = await repoState(repo);
    await expect(createTaskWorktree({ repoCwd: repo, slug: '../escape', home })).rejects.toBeInstanceOf(UsageError);
    await expect(createTaskWorktree({ repoCwd: repo, slug: 'a..b', home })).rejects.toBeInstanceOf(UsageError);
    expect(await repoState(repo)).toEqual(before);
  });

  it('in a repository without any commit', async () => {
    const empty = join(tmp.path, 'empty');
    await mkdir(empty);
    await git(empty, 'init', '-q', '-b', 'main');
    const before = await repoState(empty);
    const err = await createTaskWorktree({ repoCwd: empty, slug: 'e', home }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/no commit/);
    expect(await repoState(empty)).toEqual(before);
  });

  it('when git worktree add itself fails (a checkout hook refuses): branch, registration and directory are undone', async () => {
    await writeFile(join(repo, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const before = await repoState(repo);
    const err = await createTaskWorktree({ repoCwd: repo, slug: 'hooked', home }).catch((e: unknown) => e);
    // git treats a failing post-checkout hook as a failed add
    expect(err).toBeInstanceOf(FleetError);
    expect((err as Error).message).toMatch(/git worktree add failed/);
    expect(await repoState(repo)).toEqual(before);
    expect(await exists(join(home, 'worktrees', 'hooked'))).toBe(false);
  });
});

describe('removeTaskWorktree (rollback)', () => {
  it('removes the worktree and the branch it created, even with changes in the tree', async () => {
    const before = await repoState(repo);
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'gone', home });
    await writeFile(join(w.worktree, 'scratch.txt'), 'untracked\n');
    await writeFile(join(w.worktree, 'a.txt'), 'modified\n');
    await removeTaskWorktree(w);
    expect(await exists(w.worktree)).toBe(false);
    expect(await repoState(repo)).toEqual(before);
    await expect(git(repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/fleet/gone')).rejects.toThrow();
  });

  it('is idempotent: a second rollback finds nothing to do', async () => {
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'again', home });
    await removeTaskWorktree(w);
    await expect(removeTaskWorktree(w)).resolves.toBeUndefined();
  });

  it('never deletes a branch that moved since it was made', async () => {
    const w = await createTaskWorktree({ repoCwd: repo, slug: 'moved', home });
    await writeFile(join(w.worktree, 'c.txt'), 'work\n');
    await git(w.worktree, 'add', 'c.txt');
    await git(w.worktree, 'commit', '-qm', 'real work');
    const tip = (await git(w.worktree, 'rev-parse', 'HEAD')).trim();
    await expect(removeTaskWorktree(w)).rejects.toThrow(/branch fleet\/moved/);
    expect(await exists(w.worktree)).toBe(false);
    expect((await git(repo, 'rev-parse', 'fleet/moved')).trim()).toBe(tip);
  });
});
