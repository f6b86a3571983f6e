// `tmux-fleet sweep`: fill the owner of pending tasks whose session proves it
// (docs/ownership.md#sweep), print what it filled.
import type { Context } from '../context';
import { sweep } from '../ownership/sweep';
import type { Args } from './types';
import { writeStdout, writeStderr } from './output';
import { printable } from '../text';

export async function run(_args: Args, ctx: Context): Promise<number> {
  const r = await sweep(ctx);
  if (ctx.json) {
    writeStdout(`${JSON.stringify(r)}\n`);
  } else {
    for (const f of r.filled) writeStdout(`${printable(`filled ${f.slug}: ${f.sid} (tmux session ${f.session})`)}\n`);
    if (r.filled.length === 0) writeStdout(`nothing to fill${r.pending.length ? ` (${r.pending.length} pending: ${r.pending.join(', ')})` : ''}\n`);
    for (const e of r.errors) writeStderr(`tmux-fleet: sweep: ${printable(e)}\n`);
  }
  return r.errors.length > 0 ? 1 : 0;
}
