import type { Context } from '../context';
import { takeover } from '../ownership/takeover';
import type { Args } from './spec';

export async function run(args: Args, ctx: Context): Promise<number> {
  const r = await takeover(ctx, args.slug, { as: args.as, force: Boolean(args.force) });
  if (ctx.json) {
    const { before, ...rest } = r;
    process.stdout.write(`${JSON.stringify({ ...rest, before: { verdict: before.verdict, owner: before.owner, liveness: before.liveness, reason: before.reason } })}\n`);
  } else if (r.already) {
    process.stdout.write(`${r.slug}: ${r.asker} already owns it; nothing changed\n`);
  } else {
    process.stdout.write(`${r.slug}: ${r.asker} is the Driver now (epoch ${r.epoch}, from ${r.from || 'nobody named'}, ${r.reason})\n`);
  }
  return 0;
}
