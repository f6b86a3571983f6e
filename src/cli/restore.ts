// `tmux-fleet restore [<slug>…] [--dry-run]`: parse, restore (docs/ownership.md#restore),
// print one line per task and a summary; exit 1 when a task was refused.
import type { Context } from '../context';
import { restoreSummary, restoreTasks, type RestoreItem } from '../ownership/restore';
import { printable } from '../text';
import type { Args } from './types';
import { writeStdout } from './output';

const VERB: Record<RestoreItem['action'], string> = { restored: 'restored', 'would-restore': 'would restore', refused: 'refused', skipped: 'left' };

export async function run(args: Args, ctx: Context): Promise<number> {
  const slugs = Array.isArray(args.slug) ? args.slug : [];
  const r = await restoreTasks(ctx, { slugs, dryRun: Boolean(args.dryRun) });
  if (ctx.json) {
    // `restorable` first: the plugin reads it from the start of the line (scripts/fleet-restore.sh).
    writeStdout(`${JSON.stringify({ restorable: r.restorable, refused: r.refused, dryRun: r.dryRun, summary: restoreSummary(r), tasks: r.items })}\n`);
  } else {
    // A task left alone (its Driver runs) is named only when it was asked for.
    const shown = r.items.filter((i) => i.action !== 'skipped' || slugs.length > 0);
    const lines = shown.map((i) => printable(`${VERB[i.action]} ${i.slug}: ${i.reason}`));
    writeStdout(`${[...lines, printable(restoreSummary(r))].join('\n')}\n`);
  }
  return r.refused > 0 ? 1 : 0;
}
