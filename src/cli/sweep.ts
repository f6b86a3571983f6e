import type { Context } from '../context';
import { sweep } from '../ownership/sweep';
import type { Args } from './spec';

export async function run(_args: Args, ctx: Context): Promise<number> {
  const r = await sweep(ctx);
  if (ctx.json) {
    process.stdout.write(`${JSON.stringify(r)}\n`);
  } else {
    for (const f of r.filled) process.stdout.write(`filled ${f.slug}: ${f.sid} (tmux session ${f.session})\n`);
    if (r.filled.length === 0) process.stdout.write(`nothing to fill${r.pending.length ? ` (${r.pending.length} pending: ${r.pending.join(', ')})` : ''}\n`);
    for (const e of r.errors) process.stderr.write(`tmux-fleet: sweep: ${e}\n`);
  }
  return r.errors.length > 0 ? 1 : 0;
}
