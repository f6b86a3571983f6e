// What `done` and `gc` say of a task's worktree and branch, before (the plan)
// and after (what was done), one line each. Values come from files and git:
// every one passes through printable().
import type { EndPlan, EndResult } from '../ownership/worktree-end';
import { describeCommits } from '../ownership/worktree-end';
import { printable } from '../text';

const n = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;

/** The plan for the worktree, as a line. */
export function worktreeLine(plan: EndPlan): string {
  if (plan.worktreeState === 'none') return 'no worktree';
  if (plan.worktreeState === 'gone') return `worktree ${plan.worktree} was removed already${plan.registered ? ' (git forgets it)' : ''}`;
  return `worktree ${plan.worktree} is removed (it is clean)`;
}

/** The plan for the branch, as a line. */
export function branchLine(plan: EndPlan): string {
  const b = plan.branch ?? '';
  const base = plan.merge?.into ?? plan.base ?? 'its base';
  switch (plan.fate) {
    case 'merged':
      return plan.unmerged.length > 0
        ? `branch ${b}: ${n(plan.unmerged.length, 'commit')} merged into ${base} in ${plan.repo} (${describeCommits(plan.unmerged, 5)}), then the branch is deleted`
        : `branch ${b}: nothing ${base} lacks, nothing to merge; the branch is deleted`;
    case 'kept':
      return `branch ${b} is kept${plan.unmerged.length > 0 ? ` with ${n(plan.unmerged.length, 'commit')} ${base} lacks` : ''}`;
    case 'deleted':
      return `branch ${b} is deleted (${base} holds all of it)`;
    case 'discarded':
      return `branch ${b} is deleted with ${n(plan.unmerged.length, 'commit')} ${base} lacks: ${describeCommits(plan.unmerged, 20)}`;
    case 'none':
      return plan.branch ? `branch ${b} is gone already` : 'no branch';
  }
}

/** What was done, as lines. */
export function endLines(plan: EndPlan, end: EndResult): string[] {
  const lines: string[] = [];
  if (end.merged) lines.push(`merged ${plan.branch} into ${end.merged.into} in ${plan.repo}: ${n(end.merged.commits, 'commit')}, ${end.merged.into} now at ${end.merged.head.slice(0, 10)}`);
  if (end.worktreeRemoved) lines.push(plan.worktreeState === 'gone' ? `worktree ${plan.worktree}: git's record of it removed (its directory was gone)` : `worktree ${plan.worktree} removed`);
  if (end.branchDeleted) {
    if (plan.fate === 'discarded') lines.push(`branch ${plan.branch} deleted; dropped ${n(plan.unmerged.length, 'commit')}: ${describeCommits(plan.unmerged, 50)} (still reachable by those ids until git prunes them)`);
    else lines.push(`branch ${plan.branch} deleted (${plan.fate === 'merged' ? 'merged' : 'its base holds all of it'})`);
  } else if (plan.fate === 'kept') lines.push(`branch ${plan.branch} kept${plan.unmerged.length > 0 ? ` (${n(plan.unmerged.length, 'commit')} not merged)` : ''}`);
  for (const note of plan.notes) lines.push(note);
  return lines.map(printable);
}
