// `tmux-fleet spawn`: parse, call the spawn (docs/ownership.md#spawn), print.
import type { Context } from '../context';
import { spawnTask } from '../ownership/spawn';
import type { Args } from './types';
import { writeStdout } from './output';

const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

export async function run(args: Args, ctx: Context): Promise<number> {
  const accept = args.accept === undefined ? undefined : (Array.isArray(args.accept) ? args.accept : [args.accept]).map(String);
  const r = await spawnTask(ctx, args.slug, {
    cmd: str(args.cmd),
    cwd: str(args.cwd),
    worktree: Boolean(args.worktree),
    base: str(args.base),
    label: str(args.label),
    prompt: str(args.prompt),
    promptFile: str(args.promptFile),
    accept,
    parent: str(args.parent),
    replace: Boolean(args.replace),
    resume: Boolean(args.resume),
  });
  if (ctx.json) {
    writeStdout(`${JSON.stringify(r)}\n`);
  } else {
    const where = r.worktree ? `worktree ${r.worktree} (${r.branch} from ${r.base})` : r.cwd;
    writeStdout(
      `${r.respawn ? 'respawned' : 'spawned'} ${r.slug} in tmux session ${r.session} (${where})${r.resumed ? `, resuming ${r.resumed}` : ''}; owner pending until the agent stamps\n`,
    );
  }
  return 0;
}
