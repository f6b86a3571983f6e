// `done`, `gc`, `reopen` and `label` on real git repositories, a real private
// tmux server and the stand-in agent as the Driver: what each case leaves
// behind is read back from git, tmux and the task file
// (docs/worktrees-and-pointer.md#what-done-does-to-a-branch).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, initRepo } from '../helpers/git';
import { waitFor } from '../helpers/env';
import { json, makeWorld, type World } from '../helpers/stand-in-world';
import { pidExists } from '../../src/proc';

let w: World;
let repo: string;

beforeEach(async () => {
  w = await makeWorld();
  repo = join(w.fe.root, 'repo');
  await initRepo(repo, 'a.txt', 'one\n', 'first');
});
afterEach(async () => {
  await w.close();
});

/** Everything `done` could change, read back. */
async function state(slug: string) {
  const t = await w.readTask(slug);
  return {
    branches: await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads'),
    main: (await git(repo, 'rev-parse', 'HEAD')).trim(),
    status: await git(repo, 'status', '--porcelain'),
    worktrees: await git(repo, 'worktree', 'list', '--porcelain'),
    worktreeExists: existsSync(join(w.fe.home, 'worktrees', slug)),
    session: (await w.server.tmux.tryRun(['has-session', '-t', `=op-${slug}:`])).exitCode === 0,
    archived: t.archivedAt ?? null,
    task: t,
  };
}

/** Spawns a stand-in Driver in a worktree of the repository and waits for its stamp. */
async function spawnIn(slug: string, extra: string[] = [], env: Record<string, string> = {}): Promise<{ sid: string; worktree: string; pid: number }> {
  const rec = join(w.fe.root, `${slug}.rec.json`);
  const r = await w.fleet(['spawn', slug, '--worktree', '--cmd', w.standInCmd({ STAND_IN_RECORD: rec, ...env }), ...extra], { cwd: repo });
  expect(r.exitCode, r.stderr).toBe(0);
  const sid = await w.waitOwner(slug);
  const pid = (JSON.parse(await waitFor(() => readFile(rec, 'utf8').catch(() => ''), 'the stand-in record')) as { pid: number }).pid;
  return { sid, worktree: join(w.fe.home, 'worktrees', slug), pid };
}

async function commit(dir: string, file: string, content: string, message: string): Promise<string> {
  await writeFile(join(dir, file), content);
  await git(dir, 'add', file);
  await git(dir, 'commit', '-qm', message);
  return (await git(dir, 'rev-parse', 'HEAD')).trim();
}

describe('done', () => {
  it('--merge of a branch with two commits: both merged into main in the main checkout, the Driver asked to exit (it exits) and its session closed, the worktree removed, the branch deleted, the task archived', async () => {
    const d = await spawnIn('m', ['--accept', 'tests pass']);
    const c1 = await commit(d.worktree, 'b.txt', 'two\n', 'add b');
    const c2 = await commit(d.worktree, 'b.txt', 'two\nthree\n', 'more b');
    const r = await w.fleet(['done', 'm', '--merge', '--yes', '--force']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('accept: tests pass (--yes)');
    expect(r.stdout).toMatch(/m: Driver asked to exit \(Ctrl-C twice\): it exited in [\d.]+ s; session op-m closed/);
    expect(r.stdout).toContain(`m: merged fleet/m into main in ${repo}: 2 commits`);
    const s = await state('m');
    expect(await git(repo, 'log', '--format=%H', '-3')).toBe(`${c2}\n${c1}\n${(await git(repo, 'rev-parse', 'HEAD~2')).trim()}`);
    expect(await readFile(join(repo, 'b.txt'), 'utf8')).toBe('two\nthree\n');
    expect(s.branches).not.toContain('fleet/m');
    expect(s.status).toBe('');
    expect(s.worktrees).not.toContain('worktrees/m');
    expect(s.worktreeExists).toBe(false);
    expect(s.session).toBe(false);
    expect(pidExists(d.pid)).toBe(false);
    expect(s.archived).toMatch(/^\d{4}-/);
    expect(s.task.done).toMatchObject({ by: 'done', branch: 'merged', worktree: 'removed', merged: { into: 'main', head: c2, commits: 2 } });
    // Its Driver is gone on purpose: restore leaves it archived.
    const restore = await w.fleet(['restore']);
    expect(restore.exitCode, restore.stderr).toBe(0);
    expect((await state('m')).session).toBe(false);
    expect((await w.readTask('m')).archivedAt).toBe(s.archived);
    // Archived: out of tasks and attention, in tasks --archived.
    const tasks = await w.fleet(['tasks']);
    expect(tasks.stdout).toMatch(/^no tasks in .* \(1 archived: tasks --archived\)$/m);
    expect((await w.fleet(['tasks', '--archived'])).stdout).toMatch(/^m\s+\d+s ago\s+done\s+fleet\/m \(merged\)\s+repo/m);
  });

  it('a merge that would conflict is refused: both branches, the main checkout, the worktree, the Driver and the task as they were', async () => {
    const d = await spawnIn('c');
    await commit(d.worktree, 'a.txt', 'theirs\n', 'change a on the branch');
    await commit(repo, 'a.txt', 'ours\n', 'change a on main');
    const before = await state('c');
    const r = await w.fleet(['done', 'c', '--merge', '--yes', '--force']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/merging fleet\/c into main would conflict in "a\.txt"; both branches and the main checkout are as they were/);
    const after = await state('c');
    expect(after).toEqual(before);
    expect(after.session).toBe(true);
    expect(pidExists(d.pid)).toBe(true);
    expect(existsSync(join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
  });

  it('a worktree with uncommitted changes is refused, naming the files; nothing changed', async () => {
    const d = await spawnIn('dirty');
    await commit(d.worktree, 'b.txt', 'two\n', 'add b');
    await writeFile(join(d.worktree, 'a.txt'), 'edited\n');
    await writeFile(join(d.worktree, 'new file.txt'), 'untracked\n');
    const before = await state('dirty');
    const r = await w.fleet(['done', 'dirty', '--yes', '--force']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`the worktree ${d.worktree} has uncommitted changes: "a.txt", "new file.txt"; commit or remove them first; nothing changed`);
    expect(await state('dirty')).toEqual(before);
    expect(await readFile(join(d.worktree, 'new file.txt'), 'utf8')).toBe('untracked\n');
  });

  it('without --merge a branch with commits main lacks survives: only the worktree goes; --discard of another names every commit it drops', async () => {
    const d = await spawnIn('keep');
    const c = await commit(d.worktree, 'b.txt', 'two\n', 'work worth keeping');
    const r = await w.fleet(['done', 'keep', '--yes', '--force']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('keep: branch fleet/keep kept (1 commit not merged)');
    const s = await state('keep');
    expect(s.branches).toContain(`refs/heads/fleet/keep ${c}`);
    expect(s.worktreeExists).toBe(false);
    expect(s.worktrees).not.toContain('worktrees/keep');
    expect(s.main).not.toBe(c);
    expect(s.task.done).toMatchObject({ branch: 'kept', worktree: 'removed' });

    const x = await spawnIn('drop');
    const c1 = await commit(x.worktree, 'x.txt', '1\n', 'first dropped');
    const c2 = await commit(x.worktree, 'x.txt', '2\n', 'second dropped');
    const dropped = await w.fleet(['done', 'drop', '--discard', '--yes', '--force']);
    expect(dropped.exitCode, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain(`branch fleet/drop is deleted with 2 commits main lacks: ${c2.slice(0, 10)} "second dropped", ${c1.slice(0, 10)} "first dropped"`);
    expect(dropped.stdout).toContain(`drop: branch fleet/drop deleted; dropped 2 commits: ${c2.slice(0, 10)} "second dropped", ${c1.slice(0, 10)} "first dropped"`);
    const t = await state('drop');
    expect(t.branches).not.toContain('fleet/drop');
    expect(t.task.done).toMatchObject({ branch: 'discarded', discarded: [`${c2} second dropped`, `${c1} first dropped`] });
    // The dropped commits are still in the object store, by the ids it printed.
    expect((await git(repo, 'cat-file', '-t', c2)).trim()).toBe('commit');
  });

  it('the Driver finishing its own task (the asker) needs no --force: everything is done first, then it is asked to exit and its session closes with it', async () => {
    const d = await spawnIn('own');
    const r = await w.fleet(['done', 'own', '--yes', '--as', d.sid]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').at(-1)).toBe('own: Driver asked to exit (Ctrl-C twice): its session op-own closes as it exits');
    await waitFor(() => !pidExists(d.pid), 'the Driver exited');
    await waitFor(async () => !(await state('own')).session, 'its session closed with it');
    expect((await state('own')).archived).not.toBeNull();
  });

  it('a worktree already removed by hand is fine: git forgets it, the branch is kept, the task archived', async () => {
    const d = await spawnIn('gone');
    const c = await commit(d.worktree, 'b.txt', 'two\n', 'b');
    await rm(d.worktree, { recursive: true, force: true });
    const r = await w.fleet(['done', 'gone', '--yes', '--force']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`gone: worktree ${d.worktree}: git's record of it removed (its directory was gone)`);
    const s = await state('gone');
    expect(s.worktrees).not.toContain('worktrees/gone');
    expect(s.branches).toContain(`refs/heads/fleet/gone ${c}`);
    expect(s.archived).not.toBeNull();
  });

  it('refuses, changing nothing: no terminal and no --yes (exit 2), a live Driver that is not the asker without --force (exit 9), a dirty main checkout, a branch checked out elsewhere, a worktree that is not one, a slug that is no task', async () => {
    const d = await spawnIn('r', ['--accept', 'tests pass']);
    await commit(d.worktree, 'b.txt', 'two\n', 'b');
    const before = await state('r');
    const noTty = await w.fleet(['done', 'r', '--force']);
    expect(noTty.exitCode).toBe(2);
    expect(noTty.stderr).toContain('done r: no terminal to confirm on; give --yes to confirm; nothing changed');
    const live = await w.fleet(['done', 'r', '--yes']);
    expect(live.exitCode).toBe(9);
    expect(live.stderr).toMatch(/done r refused, nothing changed: its Driver may still be live .*use --force/);
    // The Driver itself may finish its task: it is the asker (its own session id), no --force needed; refused here for the dirty main checkout.
    await writeFile(join(repo, 'a.txt'), 'uncommitted on main\n');
    const dirtyMain = await w.fleet(['done', 'r', '--merge', '--yes', '--as', d.sid]);
    expect(dirtyMain.exitCode).toBe(1);
    expect(dirtyMain.stderr).toContain(`the main checkout ${repo} has uncommitted changes: "a.txt"; commit or stash them first; nothing changed`);
    await git(repo, 'checkout', '--', 'a.txt');
    // The base branch checked out in another worktree, the main checkout on another branch.
    await git(repo, 'checkout', '-q', '-b', 'other');
    await git(repo, 'worktree', 'add', '-q', join(w.fe.root, 'elsewhere'), 'main');
    const elsewhere = await w.fleet(['done', 'r', '--merge', '--yes', '--force']);
    expect(elsewhere.exitCode).toBe(1);
    expect(elsewhere.stderr).toContain(`main is checked out in ${join(w.fe.root, 'elsewhere')}, not in the main checkout ${repo}`);
    await git(repo, 'worktree', 'remove', join(w.fe.root, 'elsewhere'));
    await git(repo, 'checkout', '-q', 'main');
    await git(repo, 'branch', '-q', '-D', 'other');
    // The task branch checked out in a second worktree too (git worktree add --force): not done's to delete.
    await git(repo, 'worktree', 'add', '-q', '--force', join(w.fe.root, 'second'), 'fleet/r');
    const twice = await w.fleet(['done', 'r', '--discard', '--yes', '--force']);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toContain(`branch fleet/r is checked out in ${join(w.fe.root, 'second')} too; check another branch out there first; nothing changed`);
    await git(repo, 'worktree', 'remove', join(w.fe.root, 'second'));
    // The task's worktree switched to another branch by hand.
    await git(d.worktree, 'checkout', '-q', '--detach');
    const detached = await w.fleet(['done', 'r', '--yes', '--force']);
    expect(detached.exitCode).toBe(1);
    expect(detached.stderr).toContain(`the worktree ${d.worktree} has a detached HEAD checked out, not fleet/r`);
    await git(d.worktree, 'checkout', '-q', 'fleet/r');
    // A worktree path that is no git worktree (replaced by a plain directory).
    const moved = join(w.fe.root, 'moved');
    await git(repo, 'worktree', 'move', d.worktree, moved);
    await mkdir(d.worktree);
    const plain = await w.fleet(['done', 'r', '--yes', '--force']);
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toMatch(/is not a git worktree|belongs to another repository|is not a worktree of/);
    await rm(d.worktree, { recursive: true });
    await git(repo, 'worktree', 'move', moved, d.worktree);
    // A worktree of another repository at that path.
    const other = join(w.fe.root, 'other');
    await initRepo(other, 'o.txt', 'o\n', 'o');
    await git(repo, 'worktree', 'move', d.worktree, moved);
    await git(other, 'worktree', 'add', '-q', '-b', 'fleet/r', d.worktree);
    const foreign = await w.fleet(['done', 'r', '--yes', '--force']);
    expect(foreign.exitCode).toBe(1);
    expect(foreign.stderr).toMatch(/belongs to another repository/);
    await git(other, 'worktree', 'remove', d.worktree);
    await git(repo, 'worktree', 'move', moved, d.worktree);
    const nobody = await w.fleet(['done', 'no-such-task', '--yes']);
    expect(nobody.exitCode).toBe(1);
    expect(nobody.stderr).toContain('no task "no-such-task"');
    expect(await state('r')).toEqual(before);
    expect(pidExists(d.pid)).toBe(true);
  });
});

describe('reopen', () => {
  it('--resume restarts the last conversation: the worktree back on its kept branch, the agent started with --resume <its last session id>, the task listed again', async () => {
    const d = await spawnIn('back');
    const c = await commit(d.worktree, 'b.txt', 'two\n', 'b');
    expect((await w.fleet(['done', 'back', '--yes', '--force'])).exitCode).toBe(0);
    expect(existsSync(d.worktree)).toBe(false);
    const notArchived = await w.fleet(['reopen', 'm-none']);
    expect(notArchived.exitCode).toBe(1);
    const rec = join(w.fe.root, 'back.rec.json');
    await rm(rec);
    await w.server.run(['set-option', '-g', '@fleet-agent-cmd', w.standInCmd({ STAND_IN_RECORD: rec })]);
    const r = await w.fleet(['reopen', 'back', '--resume']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`back: worktree ${d.worktree} added back on its branch`);
    expect(r.stdout).toContain(`back: respawned in tmux session op-back, resuming ${d.sid}`);
    const seen = JSON.parse(await waitFor(() => readFile(rec, 'utf8').catch(() => ''), 'the resumed agent')) as { argv: string[]; cwd: string };
    expect(seen.argv.slice(0, 2)).toEqual(['--resume', d.sid]);
    expect(seen.cwd).toBe(d.worktree);
    expect((await git(d.worktree, 'rev-parse', 'HEAD')).trim()).toBe(c);
    const t = await w.readTask('back');
    expect(t.archivedAt).toBeUndefined();
    expect(t.handovers?.at(-1)).toMatchObject({ from: d.sid, reason: 'resume' });
    expect((await w.fleet(['tasks'])).stdout).toMatch(/^back\s/m);
  });
});

describe('gc', () => {
  it('lists, and on --yes archives, every task whose Driver is gone and whose worktree is clean and merged; a live Driver, a dirty or an unmerged worktree stay', async () => {
    const merged = await spawnIn('gm');
    const dirty = await spawnIn('gd');
    const unmerged = await spawnIn('gu');
    await spawnIn('glive');
    await writeFile(join(dirty.worktree, 'scratch.txt'), 'x\n');
    await commit(unmerged.worktree, 'u.txt', 'u\n', 'unmerged work');
    for (const slug of ['gm', 'gd', 'gu']) await w.server.run(['kill-session', '-t', `=op-${slug}:`]);
    await waitFor(() => !pidExists(merged.pid) && !pidExists(dirty.pid) && !pidExists(unmerged.pid), 'the Drivers gone');
    const noTty = await w.fleet(['gc']);
    expect(noTty.exitCode).toBe(2);
    expect(noTty.stdout).toMatch(/^gc: 1 task to archive:\n {2}gm: its Driver [0-9a-f-]+ is gone; worktree .* is removed \(it is clean\); branch fleet\/gm is deleted \(main holds all of it\)$/m);
    expect((await w.readTask('gm')).archivedAt).toBeUndefined();
    const r = await w.fleet(['gc', '--yes', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = json<{ archived: { slug: string }[]; kept: { slug: string; why: string }[] }>(r);
    expect(out.archived.map((a) => a.slug)).toEqual(['gm']);
    expect(Object.fromEntries(out.kept.map((k) => [k.slug, k.why]))).toEqual({
      gd: expect.stringContaining('uncommitted changes: "scratch.txt"'),
      gu: 'branch fleet/gu has 1 commit(s) main lacks',
      glive: expect.stringMatching(/op-glive.*live/),
    });
    expect((await w.readTask('gm')).done).toMatchObject({ by: 'gc', branch: 'deleted', worktree: 'removed' });
    expect(await git(repo, 'branch', '--list', 'fleet/gm')).toBe('');
    expect(existsSync(merged.worktree)).toBe(false);
    // done --gone is the same.
    const again = await w.fleet(['done', '--gone', '--yes']);
    expect(again.stdout).toMatch(/^gc: nothing to archive/);
  });
});

describe('label', () => {
  it('sets and removes a task\'s label; a control character is refused and nothing changes', async () => {
    await w.writeTask('l', { driverSid: '' });
    expect((await w.fleet(['label', 'l', 'Login rework'])).stdout).toBe('l: label "Login rework"');
    expect((await w.readTask('l')).label).toBe('Login rework');
    const bad = await w.fleet(['label', 'l', 'two\nlines']);
    expect(bad.exitCode).toBe(2);
    expect((await w.readTask('l')).label).toBe('Login rework');
    expect((await w.fleet(['label', 'l', ''])).stdout).toBe('l: label removed');
    expect((await w.readTask('l')).label).toBeUndefined();
    expect((await w.fleet(['label', 'nope', 'x'])).exitCode).toBe(1);
  });
});
