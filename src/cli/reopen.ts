// `tmux-fleet reopen <slug> [--resume]`: an archived task back (docs/ownership.md#reopen).
import type { Context } from '../context';
import { reopenTask } from '../actions/finish';
import { printable } from '../text';
import type { Args } from './types';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const r = await reopenTask(ctx, args.slug, { resume: Boolean(args.resume) });
  if (ctx.json) {
    writeStdout(`${JSON.stringify(r)}\n`);
    return 0;
  }
  const lines = [...(r.worktree ? [`worktree ${r.worktree} added back on its branch`] : []), ...r.notes];
  if (r.spawned) lines.push(`respawned in tmux session ${r.spawned.session}, resuming ${r.spawned.resumed}`);
  lines.push(r.spawned ? 'reopened' : `reopened (tmux-fleet spawn ${r.slug} --resume starts its Driver again)`);
  for (const l of lines) writeStdout(`${printable(`${r.slug}: ${l}`)}\n`);
  return 0;
}
