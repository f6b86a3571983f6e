// git for the task's worktree and branch: every call an argv array through
// execa, with the variables that would aim git at another repository than the
// -C directory cleared (docs/worktrees-and-pointer.md#task-worktrees).
import { execa } from 'execa';
import { FleetError } from '../errors';

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  exitCode: number;
}

// Variables that would aim git at another repository than the -C directory.
const GIT_ENV_OVERRIDES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_NAMESPACE', 'GIT_PREFIX'];

/** Runs git in `cwd`; never throws for git's own failure (ok false), only when git cannot be run. */
export async function git(cwd: string, args: readonly string[]): Promise<GitResult> {
  const env: Record<string, string | undefined> = { GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no' };
  for (const k of GIT_ENV_OVERRIDES) env[k] = undefined;
  try {
    const r = await execa('git', ['-C', cwd, ...args], { reject: false, env, stdin: 'ignore', timeout: 60_000 });
    return { ok: r.exitCode === 0, stdout: String(r.stdout), stderr: String(r.stderr).trim(), exitCode: r.exitCode ?? -1 };
  } catch (err) {
    throw new FleetError(`could not run git: ${(err as Error).message}`);
  }
}

/** git's message on one line. */
export function oneLine(text: string): string {
  return text.split('\n').map((s) => s.trim()).filter(Boolean).join(' ');
}
