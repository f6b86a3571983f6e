// `tmux-fleet label <slug> <text>`: a task's label (docs/tasks.md#keys).
import type { Context } from '../context';
import { labelTask } from '../actions/finish';
import { printable } from '../text';
import type { Args } from './types';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const r = await labelTask(ctx, args.slug, args.text);
  if (ctx.json) writeStdout(`${JSON.stringify(r)}\n`);
  else writeStdout(`${printable(r.label === null ? `${r.slug}: label removed` : `${r.slug}: label ${JSON.stringify(r.label)}`)}\n`);
  return 0;
}
