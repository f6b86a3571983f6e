// What finishing a task does to its worktree and its branch
// (docs/worktrees-and-pointer.md#what-done-does-to-a-branch): a plan made of
// reads only (every refusal is found here, before anything changes), then the
// plan carried out: merge into the base in the main checkout (--merge), remove
// the worktree, delete the branch where nothing is lost by it.
//
// The branch's tip is read at planning time and deleted only while it still
// points there (`git update-ref -d <ref> <old>`), so a commit made after the
// plan is never thrown away.
import { realpath } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { FleetError, UsageError } from '../errors';
import { lstat } from '../fs-async';
import type { Task } from '../tasks/schema';
import { git, oneLine } from './git';
import { listWorktrees, repoOfWorktreeFile, type WorktreeEntry } from './worktree';

/** What happens to the task's branch. */
export type BranchFate =
  /** merged into its base (--merge), then deleted */
  | 'merged'
  /** left as it is (the default) */
  | 'kept'
  /** deleted: it held no commit its base lacks (gc, or --discard of an empty branch) */
  | 'deleted'
  /** deleted with commits its base lacks (--discard): they are named */
  | 'discarded'
  /** there is no branch: the task has none, or it was deleted already */
  | 'none';

export interface Commit {
  sha: string;
  subject: string;
}

export interface EndPlan {
  /** The repository's main checkout, when known. */
  repo: string | null;
  worktree: string | null;
  /** `present`: a checkout is there; `gone`: recorded, but its directory was removed (by hand); `none`: the task has no worktree. */
  worktreeState: 'present' | 'gone' | 'none';
  /** git still lists the worktree (a removed directory's entry is pruned by the removal). */
  registered: boolean;
  /** The path git lists it under. */
  registeredPath?: string;
  branch: string | null;
  /** The branch's tip when planned; null when there is no such branch. */
  branchTip: string | null;
  /** What the branch is compared with: its base branch (or the recorded base commit). */
  base: string | null;
  /** The commits of the branch that its base lacks, newest first. */
  unmerged: Commit[];
  fate: BranchFate;
  /** With --merge and something to merge: where, and the main checkout's HEAD before. */
  merge: { into: string; checkout: string; head: string } | null;
  /** Things worth saying that change nothing (a branch already gone, a repository not recorded). */
  notes: string[];
}

export interface EndOptions {
  /** Merge the branch into its base in the main checkout. */
  merge?: boolean;
  /** Delete the branch even when it holds commits its base lacks. */
  discard?: boolean;
  /** gc: the branch must be merged already (then it is deleted), or the task is not gc's. */
  gc?: boolean;
}

/** A refusal of the plan: the message says why, and nothing was changed. */
export class EndRefused extends FleetError {}

/** The most file names a refusal lists. */
const NAMES_SHOWN = 8;

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).map((n) => JSON.stringify(n)).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

async function isDir(path: string): Promise<'dir' | 'other' | 'missing'> {
  try {
    return (await lstat(path)).isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

/** The paths of `git status --porcelain -z` (a rename's both), in order. */
export function statusPaths(z: string): string[] {
  const fields = z.split('\0').filter((f) => f !== '');
  const out: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as string;
    out.push(f.slice(3));
    // A rename or copy is followed by its source path.
    if (f[0] === 'R' || f[0] === 'C') out.push(fields[++i] ?? '');
  }
  return out;
}

/** Uncommitted changes of a checkout: tracked changes, and untracked files unless `tracked`. */
async function changedFiles(dir: string, tracked = false): Promise<string[]> {
  const r = await git(dir, ['status', '--porcelain=v1', '-z', tracked ? '--untracked-files=no' : '--untracked-files=all']);
  if (!r.ok) throw new EndRefused(`cannot read the state of ${dir}: git status failed: ${oneLine(r.stderr)}`);
  return statusPaths(r.stdout);
}

async function revParse(dir: string, rev: string): Promise<string | null> {
  const r = await git(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', rev]);
  return r.ok && r.stdout.trim() !== '' ? r.stdout.trim() : null;
}

/** Commits of `tip` that `base` lacks, newest first. */
async function commitsNotIn(repo: string, base: string, tip: string): Promise<Commit[]> {
  const r = await git(repo, ['log', '--format=%H%x1f%s', `${base}..${tip}`, '--']);
  if (!r.ok) throw new EndRefused(`cannot compare ${tip} with ${base} in ${repo}: ${oneLine(r.stderr)}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const i = l.indexOf('\x1f');
      return { sha: l.slice(0, i), subject: l.slice(i + 1) };
    });
}

/** Commits named in a message: `abc1234 subject`, at most a few and then how many more. */
export function describeCommits(commits: readonly Commit[], max = 10): string {
  const shown = commits.slice(0, max).map((c) => `${c.sha.slice(0, 10)} ${JSON.stringify(c.subject)}`);
  return commits.length > max ? `${shown.join(', ')} and ${commits.length - max} more` : shown.join(', ');
}

/** A worktree's own top level and common git directory, or null when it is no git checkout. */
async function checkoutOf(dir: string): Promise<{ top: string; common: string } | null> {
  const r = await git(dir, ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir']);
  if (!r.ok) return null;
  const [top = '', common = ''] = r.stdout.trim().split('\n');
  return top && common ? { top, common } : null;
}

/**
 * The plan for ending a task's worktree and branch. Reads only; throws
 * EndRefused (exit 1) or UsageError (exit 2) with the reason when the task
 * cannot be ended so, and nothing is changed.
 */
export async function planEnd(task: Task, opts: EndOptions = {}): Promise<EndPlan> {
  if (opts.merge && opts.discard) throw new UsageError('done: --merge and --discard contradict each other: merge the branch, or drop it');
  const worktree = task.worktree && isAbsolute(task.worktree) ? task.worktree : null;
  const branch = task.branch || null;
  const notes: string[] = [];
  const plan: EndPlan = { repo: null, worktree, worktreeState: 'none', registered: false, branch, branchTip: null, base: task.base ?? null, unmerged: [], fate: 'none', merge: null, notes };
  if (!worktree && !branch) {
    if (opts.merge || opts.discard) throw new UsageError(`done ${opts.merge ? '--merge' : '--discard'}: task ${task.slug} has no branch (it was spawned without --worktree)`);
    return plan;
  }

  // --- The worktree as it is on disk. ---
  const onDisk = worktree ? await isDir(worktree) : 'missing';
  if (worktree && onDisk === 'other') throw new EndRefused(`${worktree}, the task's worktree, is not a directory; nothing changed`);
  let checkout: { top: string; common: string } | null = null;
  if (worktree && onDisk === 'dir') {
    checkout = await checkoutOf(worktree);
    const real = await realpath(worktree).catch(() => worktree);
    if (!checkout || checkout.top !== real) {
      throw new EndRefused(`${worktree}, the task's worktree, is not a git worktree${checkout ? ` (git places it in ${checkout.top})` : ''}; nothing changed`);
    }
  }

  // --- The repository: recorded at spawn, else read from the worktree. ---
  let repo = task.repo ?? (worktree && onDisk === 'dir' ? repoOfWorktreeFile(worktree) : null);
  let entries: WorktreeEntry[] = [];
  if (repo !== null) {
    entries = await listWorktrees(repo);
    const main = entries[0];
    if (!main) {
      // The repository is gone (or is no repository): only a worktree that is gone too can be ended.
      if (onDisk === 'dir' || opts.merge || opts.discard) throw new EndRefused(`${repo}, the task's repository, is not a git repository any more; nothing changed`);
      notes.push(`its repository ${repo} is gone: branch ${branch ?? '(none)'} not looked at`);
      plan.repo = repo;
      plan.worktreeState = worktree ? 'gone' : 'none';
      plan.fate = branch ? 'kept' : 'none';
      return plan;
    }
    if (main.bare) throw new EndRefused(`${repo} is a bare repository: there is no main checkout to finish the task in; nothing changed`);
    repo = main.path;
  } else if (onDisk === 'dir' && checkout) {
    entries = await listWorktrees(worktree as string);
    repo = entries[0]?.path ?? null;
  } else {
    if (opts.merge || opts.discard) {
      throw new EndRefused(`the worktree of ${task.slug} is gone and its record names no repository: ${branch ?? 'its branch'} cannot be found to ${opts.merge ? 'merge' : 'discard'}; nothing changed`);
    }
    notes.push(`its worktree is gone and its record names no repository: branch ${branch ?? '(none)'} left wherever it is`);
    plan.worktreeState = worktree ? 'gone' : 'none';
    plan.fate = branch ? 'kept' : 'none';
    return plan;
  }
  plan.repo = repo;
  const mainEntry = entries[0] as WorktreeEntry;
  const common = (await checkoutOf(repo as string))?.common;
  if (checkout && common && checkout.common !== common) {
    throw new EndRefused(`${worktree}, the task's worktree, belongs to another repository (${checkout.common}), not to ${repo}; nothing changed`);
  }
  // git lists a worktree by the path it was added with; a link in the fleet home's path must not hide it.
  const realWorktree = worktree ? await realpath(worktree).catch(() => worktree) : null;
  const real = async (p: string) => realpath(p).catch(() => p);
  let own: WorktreeEntry | undefined;
  for (const e of entries) if (worktree && (e.path === worktree || (await real(e.path)) === realWorktree)) own = e;
  plan.registered = own !== undefined;
  if (own) plan.registeredPath = own.path;
  plan.worktreeState = worktree ? (onDisk === 'dir' ? 'present' : 'gone') : 'none';
  if (plan.worktreeState === 'present' && !own) throw new EndRefused(`${worktree} is not a worktree of ${repo} (git worktree list does not name it); nothing changed`);
  if (plan.worktreeState === 'gone') notes.push(`its worktree ${worktree} was removed already`);

  // --- The worktree's own state: on the task's branch, and nothing uncommitted. ---
  if (plan.worktreeState === 'present') {
    const on = own?.branch ?? null;
    if (branch && on !== `refs/heads/${branch}`) {
      throw new EndRefused(`the worktree ${worktree} has ${on ? `branch ${on.replace(/^refs\/heads\//, '')}` : 'a detached HEAD'} checked out, not ${branch}; check ${branch} out there again, or finish it by hand; nothing changed`);
    }
    const dirty = await changedFiles(worktree as string);
    if (dirty.length > 0) {
      throw new EndRefused(`the worktree ${worktree} has uncommitted changes: ${listNames(dirty)}; commit or remove them first; nothing changed`);
    }
  }

  // --- The branch. ---
  if (!branch) {
    if (opts.merge || opts.discard) throw new UsageError(`done ${opts.merge ? '--merge' : '--discard'}: task ${task.slug} records no branch`);
    return plan;
  }
  plan.branchTip = await revParse(repo as string, `refs/heads/${branch}`);
  if (plan.branchTip === null) {
    if (opts.merge || opts.discard) throw new EndRefused(`branch ${branch} is not in ${repo} any more: nothing to ${opts.merge ? 'merge' : 'discard'}; nothing changed`);
    notes.push(`branch ${branch} was deleted already`);
    return plan;
  }
  const elsewhere = entries.find((e) => e.branch === `refs/heads/${branch}` && e !== own);
  if (elsewhere) throw new EndRefused(`branch ${branch} is checked out in ${elsewhere.path} too; check another branch out there first; nothing changed`);

  // What the branch is compared with: its base branch while there is one, else the recorded base.
  const baseName = task.base ?? null;
  const baseIsBranch = baseName !== null && (await revParse(repo as string, `refs/heads/${baseName}`)) !== null;
  const baseCommit = typeof task.baseCommit === 'string' ? task.baseCommit : null;
  const against = baseIsBranch ? `refs/heads/${baseName}` : baseName && (await revParse(repo as string, `${baseName}^{commit}`)) ? baseName : baseCommit;
  if (against === null) throw new EndRefused(`cannot tell what ${branch} was made from (no base recorded, or ${JSON.stringify(baseName)} is gone); nothing changed`);
  plan.unmerged = await commitsNotIn(repo as string, against, plan.branchTip);

  if (opts.gc) {
    if (plan.unmerged.length > 0) throw new EndRefused(`branch ${branch} has ${plan.unmerged.length} commit(s) ${baseName ?? 'its base'} lacks`);
    plan.fate = 'deleted';
    return plan;
  }
  if (opts.discard) {
    plan.fate = plan.unmerged.length > 0 ? 'discarded' : 'deleted';
    return plan;
  }
  if (!opts.merge) {
    plan.fate = 'kept';
    return plan;
  }

  // --- --merge: into the base branch, in the main checkout, which must be on it and clean. ---
  if (!baseIsBranch) {
    throw new EndRefused(`${branch} was made from ${JSON.stringify(baseName ?? baseCommit)}, which is not a branch of ${repo}: there is no branch to merge it into; merge it by hand; nothing changed`);
  }
  const into = baseName as string;
  if (mainEntry.branch !== `refs/heads/${into}`) {
    const where = entries.find((e) => e.branch === `refs/heads/${into}`);
    throw new EndRefused(
      where
        ? `${into} is checked out in ${where.path}, not in the main checkout ${repo}: merge there by hand, or check ${into} out in ${repo}; nothing changed`
        : `the main checkout ${repo} has ${mainEntry.branch ? mainEntry.branch.replace(/^refs\/heads\//, '') : 'a detached HEAD'} checked out, not ${into}; check ${into} out there first; nothing changed`,
    );
  }
  const mainDirty = await changedFiles(repo as string, true);
  if (mainDirty.length > 0) throw new EndRefused(`the main checkout ${repo} has uncommitted changes: ${listNames(mainDirty)}; commit or stash them first; nothing changed`);
  for (const op of ['MERGE_HEAD', 'REBASE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD']) {
    if (await revParse(repo as string, op)) throw new EndRefused(`the main checkout ${repo} is in the middle of a ${op.split('_')[0]?.toLowerCase().replace('cherry', 'cherry-pick')}; finish or abort it first; nothing changed`);
  }
  plan.fate = 'merged';
  if (plan.unmerged.length > 0) {
    const conflicts = await mergeConflicts(repo as string, `refs/heads/${into}`, plan.branchTip);
    if (conflicts !== null && conflicts.length > 0) {
      throw new EndRefused(`merging ${branch} into ${into} would conflict in ${listNames(conflicts)}; both branches and the main checkout are as they were; resolve it by hand (or rebase ${branch}), then run done again`);
    }
    plan.merge = { into, checkout: repo as string, head: mainEntry.head };
  }
  return plan;
}

/**
 * The files a merge of `tip` into `base` would conflict in, computed without
 * touching any checkout (`git merge-tree --write-tree`, git 2.38+); null when
 * this git cannot tell (the merge itself then decides, and is undone on a conflict).
 */
async function mergeConflicts(repo: string, base: string, tip: string): Promise<string[] | null> {
  const r = await git(repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, tip]);
  if (r.exitCode === 0) return [];
  if (r.exitCode !== 1) return null;
  // The tree's id, then the conflicted files.
  return r.stdout.split('\n').slice(1).filter((l) => l !== '');
}

/** What was done, step by step, for the command's output. */
export interface EndResult {
  /** The main checkout's new HEAD after --merge. */
  merged: { into: string; head: string; commits: number } | null;
  worktreeRemoved: boolean;
  branchDeleted: boolean;
}

/**
 * Carries out a plan: merge (--merge), remove the worktree, delete the branch
 * when its fate says so (only while it still points where it was planned).
 * A merge that fails is aborted and leaves the main checkout as it was.
 */
export async function applyEnd(plan: EndPlan): Promise<EndResult> {
  const result: EndResult = { merged: null, worktreeRemoved: false, branchDeleted: false };
  const repo = plan.repo;
  if (plan.merge && plan.branch && plan.branchTip) {
    const { checkout, into, head } = plan.merge;
    // The branch by name (git's message names it), after checking it still points where it was planned.
    if ((await revParse(checkout, `refs/heads/${plan.branch}`)) !== plan.branchTip) {
      throw new EndRefused(`branch ${plan.branch} moved while the task was being finished; nothing was merged; run done again`);
    }
    const r = await git(checkout, ['merge', '--no-edit', plan.branch]);
    if (!r.ok) {
      const half = (await revParse(checkout, 'MERGE_HEAD')) !== null;
      if (half) await git(checkout, ['merge', '--abort']);
      const now = await revParse(checkout, 'HEAD');
      const restored = now === head && (await revParse(checkout, 'MERGE_HEAD')) === null;
      throw new EndRefused(
        `git merge of ${plan.branch} into ${into} failed in ${checkout}: ${oneLine(r.stdout + '\n' + r.stderr)}; ${restored ? 'the main checkout is as it was; nothing changed' : `the main checkout was left at ${now ?? 'an unknown commit'}: look at it (git status)`}`,
      );
    }
    const now = (await revParse(checkout, 'HEAD')) ?? '';
    const contains = await git(checkout, ['merge-base', '--is-ancestor', plan.branchTip, 'HEAD']);
    if (!contains.ok) throw new EndRefused(`git merge ran in ${checkout}, but ${into} does not hold ${plan.branch} afterwards; nothing else changed`);
    result.merged = { into, head: now, commits: plan.unmerged.length };
  }
  if (repo && plan.worktree && plan.registered) {
    // Without --force: git refuses a worktree that changed since the plan (its files are never lost); a removed directory's entry is dropped.
    const r = await git(repo, ['worktree', 'remove', '--', plan.registeredPath ?? plan.worktree]);
    if (!r.ok) throw new EndRefused(`git worktree remove ${plan.worktree} failed: ${oneLine(r.stderr)}${result.merged ? ` (${plan.branch} was merged into ${result.merged.into} already)` : ''}; the worktree and the branch are kept`);
    result.worktreeRemoved = true;
  }
  if (repo && plan.branch && plan.branchTip && (plan.fate === 'merged' || plan.fate === 'deleted' || plan.fate === 'discarded')) {
    // Only while it points where it was planned: a commit made since is never thrown away.
    const r = await git(repo, ['update-ref', '-d', `refs/heads/${plan.branch}`, plan.branchTip]);
    if (!r.ok) throw new EndRefused(`branch ${plan.branch} moved since it was looked at, so it is kept: ${oneLine(r.stderr)}`);
    result.branchDeleted = true;
  }
  return result;
}
