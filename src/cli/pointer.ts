// `tmux-fleet pointer --parent <sid>`: the spawner-pointer line for that parent, or nothing.
import type { Context } from '../context';
import { UsageError } from '../errors';
import { findParentRecord } from '../ownership/parent';
import { pointerLine } from '../pointer/pointer';
import type { Args } from './types';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const parent = args.parent;
  if (typeof parent !== 'string' || parent.trim() === '') {
    throw new UsageError('pointer: missing --parent <sid> (the spawner session id)');
  }
  const line = pointerLine(await findParentRecord(ctx.home, parent.trim()));
  if (ctx.json) writeStdout(`${JSON.stringify({ parent: parent.trim(), pointer: line })}\n`);
  else if (line !== null) writeStdout(`${line}\n`);
  return 0;
}
