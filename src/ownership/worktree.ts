// The task's git worktree (`spawn --worktree`; docs/worktrees-and-pointer.md#task-worktrees).
//
// Choices:
// - Location: <home>/worktrees/<slug>. The slug is unique in a fleet home (it
//   names the task directory), so the path is too; nothing is written next to
//   or inside the user's repository except what `git worktree add` itself
//   records in the repository's .git.
// - Branch: fleet/<slug>, new, checked by `git check-ref-format --branch`.
// - Base: --base as given, resolved in the directory the spawn runs in. The
//   default is the repository's HEAD: the HEAD of its main checkout, not of the
//   linked worktree the spawn may run in, so a child spawned from inside another
//   task's worktree branches from the base and never from its spawner.
//   `base` records the name (the branch the main checkout is on, e.g. `main`,
//   or the commit when it is detached); `baseCommit` records the commit the
//   branch was created at.
// - Every git call is an argv array through execa; no shell ever sees a value.
// - Failure leaves nothing behind: no branch, no worktree registration, no directory.
import { readFileSync } from 'node:fs';
import { lstat, mkdir, rm, rmdir } from '../fs-async';
import { isAbsolute, join, resolve } from 'node:path';
import { FleetError, UsageError } from '../errors';
import { echoInput } from '../text';
import { assertSlug } from '../tasks/slug';
import { git, oneLine } from './git';

export const BRANCH_PREFIX = 'fleet/';

export function worktreesDir(home: string): string {
  return join(home, 'worktrees');
}

export function taskWorktreePath(home: string, slug: string): string {
  return join(worktreesDir(home), assertSlug(slug));
}

export function taskBranch(slug: string): string {
  return `${BRANCH_PREFIX}${assertSlug(slug)}`;
}

export interface CreateWorktreeOptions {
  /** A directory inside the repository the spawn runs in. */
  repoCwd: string;
  slug: string;
  /** Base ref (branch, tag, commit); default: the repository's HEAD (its main checkout's). */
  base?: string;
  home: string;
}

export interface TaskWorktree {
  /** Absolute path of the new worktree. */
  worktree: string;
  /** fleet/<slug> */
  branch: string;
  /** The base as a name: --base as given, else the main checkout's branch (or its commit when detached). */
  base: string;
  /** The commit fleet/<slug> was created at. */
  baseCommit: string;
  /** Top level of the checkout the spawn ran in; git commands for rollback run there. */
  repo: string;
  /** The repository's main checkout (where `done --merge` merges), or null for a bare repository. */
  mainCheckout: string | null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Throws UsageError unless name is a valid branch name by git's own rule. */
export async function assertBranchName(cwd: string, name: string): Promise<void> {
  const r = await git(cwd, ['check-ref-format', '--branch', name]);
  if (!r.ok) throw new UsageError(`invalid branch name ${echoInput(name)} (git check-ref-format --branch refuses it)`);
}

async function resolveBase(top: string, base: string | undefined): Promise<{ base: string; commit: string }> {
  if (base !== undefined) {
    if (base === '' || base.startsWith('-')) throw new UsageError(`--base: ${JSON.stringify(base)} is not a git ref`);
    const r = await git(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]);
    if (!r.ok) throw new UsageError(`--base: no commit ${JSON.stringify(base)} in the repository at ${top}`);
    return { base, commit: r.stdout.trim() };
  }
  // The main checkout's HEAD lives in the common git directory.
  const common = await git(top, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (!common.ok) throw new FleetError(`git rev-parse --git-common-dir failed in ${top}: ${oneLine(common.stderr)}`);
  const gitDir = common.stdout.trim();
  const commit = await git(top, [`--git-dir=${gitDir}`, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!commit.ok) throw new UsageError(`the repository at ${top} has no commit on HEAD yet: commit first, or give --base`);
  const name = await git(top, [`--git-dir=${gitDir}`, 'symbolic-ref', '--quiet', '--short', 'HEAD']);
  const sha = commit.stdout.trim();
  return { base: name.ok && name.stdout.trim() !== '' ? name.stdout.trim() : sha, commit: sha };
}

/**
 * Creates <home>/worktrees/<slug> on a new branch fleet/<slug> from the base.
 * UsageError outside a git repository or for a bad base; FleetError when the
 * branch or the path already exists or git fails. On any failure nothing is
 * left behind.
 */
export async function createTaskWorktree(opts: CreateWorktreeOptions): Promise<TaskWorktree> {
  const branch = taskBranch(opts.slug);
  const worktree = resolve(taskWorktreePath(opts.home, opts.slug));
  const cwd = resolve(opts.repoCwd);

  const top = await git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok || top.stdout.trim() === '') {
    throw new UsageError(`--worktree: ${cwd} is not inside a git repository (or git cannot read it: ${oneLine(top.stderr) || 'no work tree'})`);
  }
  const repo = top.stdout.trim();
  await assertBranchName(repo, branch);
  const { base, commit } = await resolveBase(repo, opts.base);

  if ((await git(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])).ok) {
    throw new FleetError(`--worktree: branch ${branch} already exists in ${repo}; delete it (git branch -D ${branch}) or pick another slug`);
  }
  if (await exists(worktree)) {
    throw new FleetError(`--worktree: ${worktree} already exists; remove it (git worktree remove) or pick another slug`);
  }
  if (await isRegistered(repo, worktree)) {
    throw new FleetError(`--worktree: ${worktree} is still registered as a worktree of ${repo} though it is gone; run git worktree prune`);
  }

  const parent = worktreesDir(opts.home);
  const madeParent = !(await exists(parent));
  if (madeParent) await mkdir(parent, { recursive: true, mode: 0o700 });

  const add = await git(repo, ['worktree', 'add', '--quiet', '-b', branch, '--', worktree, commit]);
  if (!add.ok) {
    await undo({ repo, worktree, branch, baseCommit: commit }).catch(() => undefined);
    // It did not exist before this call; whatever git left there is ours.
    await rm(worktree, { recursive: true, force: true }).catch(() => undefined);
    if (madeParent) await rmdir(parent).catch(() => undefined);
    throw new FleetError(`--worktree: git worktree add failed for ${worktree}: ${oneLine(add.stderr)}`);
  }
  return { worktree, branch, base, baseCommit: commit, repo, mainCheckout: await mainCheckout(repo) };
}

async function isRegistered(repo: string, worktree: string): Promise<boolean> {
  return (await listWorktrees(repo)).some((w) => w.path === worktree);
}

/** One entry of `git worktree list --porcelain`: the main checkout first. */
export interface WorktreeEntry {
  path: string;
  /** The commit checked out ('' in a bare repository's entry). */
  head: string;
  /** refs/heads/<name> checked out there, or null (detached, bare). */
  branch: string | null;
  bare: boolean;
  /** Registered, but its directory is gone (git prunes such an entry). */
  prunable: boolean;
}

/** Every worktree of the repository `cwd` belongs to, the main checkout first; [] when git cannot list them. */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[]> {
  // -z (git 2.36+) keeps paths with newlines whole; older git gets the line form.
  let list = await git(cwd, ['worktree', 'list', '--porcelain', '-z']);
  let sep = '\0';
  if (!list.ok) {
    list = await git(cwd, ['worktree', 'list', '--porcelain']);
    sep = '\n';
  }
  if (!list.ok) return [];
  const out: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const field of list.stdout.split(sep)) {
    if (field.startsWith('worktree ')) {
      cur = { path: field.slice('worktree '.length), head: '', branch: null, bare: false, prunable: false };
      out.push(cur);
    } else if (cur && field.startsWith('HEAD ')) cur.head = field.slice(5);
    else if (cur && field.startsWith('branch ')) cur.branch = field.slice(7);
    else if (cur && field === 'bare') cur.bare = true;
    else if (cur && (field === 'prunable' || field.startsWith('prunable '))) cur.prunable = true;
  }
  return out;
}

/**
 * The main checkout of the repository `cwd` is in (its first worktree), or
 * null outside a repository or for a bare one (nothing to merge in there).
 */
export async function mainCheckout(cwd: string): Promise<string | null> {
  const first = (await listWorktrees(cwd))[0];
  return first && !first.bare ? first.path : null;
}

/**
 * The main checkout a task's worktree belongs to, read from the worktree's
 * `.git` file (`gitdir: <repo>/.git/worktrees/<name>`) without running git;
 * null when the file is not there or says something else. For records
 * written before spawn recorded `repo`.
 */
export function repoOfWorktreeFile(worktree: string): string | null {
  try {
    const text = readFileSync(join(worktree, '.git'), { encoding: 'utf8', flag: 'r' }).slice(0, 4096);
    const m = /^gitdir: (.+)\n?$/.exec(text);
    const at = m ? m[1]!.lastIndexOf('/.git/worktrees/') : -1;
    return m && at > 0 ? m[1]!.slice(0, at) : null;
  } catch {
    return null;
  }
}

/** Best-effort undo of a half-made worktree; reports what could not be removed. */
async function undo(w: Pick<TaskWorktree, 'repo' | 'worktree' | 'branch' | 'baseCommit'>): Promise<string[]> {
  const left: string[] = [];
  if (await isRegistered(w.repo, w.worktree)) {
    const r = await git(w.repo, ['worktree', 'remove', '--force', '--', w.worktree]);
    if (!r.ok) left.push(`worktree ${w.worktree} (${oneLine(r.stderr)})`);
  }
  if ((await git(w.repo, ['show-ref', '--verify', '--quiet', `refs/heads/${w.branch}`])).ok) {
    // Deleted only while it still points where we made it: work committed on it since is never thrown away.
    const r = await git(w.repo, ['update-ref', '-d', `refs/heads/${w.branch}`, w.baseCommit]);
    if (!r.ok) left.push(`branch ${w.branch} (it moved since it was created; not deleted)`);
  }
  return left;
}

/**
 * Rollback of createTaskWorktree, for a spawn whose later step failed: removes
 * the worktree (even with changes in it) and deletes the branch, unless the
 * branch has moved since it was created. Throws FleetError naming what is left.
 */
export async function removeTaskWorktree(w: Pick<TaskWorktree, 'repo' | 'worktree' | 'branch' | 'baseCommit'>): Promise<void> {
  if (!isAbsolute(w.worktree)) throw new UsageError(`removeTaskWorktree: ${w.worktree} is not an absolute path`);
  const left = await undo(w);
  if (left.length > 0) throw new FleetError(`could not roll back the task worktree: ${left.join('; ')}`);
}

/** The repository a task works in (its main checkout): recorded at spawn, else read from its worktree's `.git` file; null when neither tells. */
export function taskRepo(task: { repo?: string; worktree?: string } | null | undefined): string | null {
  if (!task) return null;
  if (task.repo) return task.repo;
  return task.worktree && isAbsolute(task.worktree) ? repoOfWorktreeFile(task.worktree) : null;
}
