// `tmux-fleet takeover`: make the asker the Driver (docs/ownership.md#takeover);
// a refusal is exit 9, one object under --json too.
import type { Context } from '../context';
import { ExitWith } from '../errors';
import { takeover } from '../ownership/takeover';
import type { Args } from './types';
import { writeStdout } from './output';
import { printable } from '../text';

export async function run(args: Args, ctx: Context): Promise<number> {
  let r;
  try {
    r = await takeover(ctx, args.slug, { as: args.as, force: Boolean(args.force) });
  } catch (err) {
    // --json prints exactly one object, a refusal included.
    if (ctx.json && err instanceof ExitWith && err.exitCode === 9) {
      writeStdout(`${JSON.stringify({ slug: String(args.slug), refused: true, reason: err.message })}\n`);
      return 9;
    }
    throw err;
  }
  if (ctx.json) {
    const { before, ...rest } = r;
    writeStdout(`${JSON.stringify({ ...rest, refused: false, before: { verdict: before.verdict, owner: before.owner, liveness: before.liveness, reason: before.reason } })}\n`);
  } else if (r.already) {
    writeStdout(`${printable(`${r.slug}: ${r.asker} already owns it; nothing changed`)}\n`);
  } else {
    writeStdout(`${printable(`${r.slug}: ${r.asker} is the Driver now (epoch ${r.epoch}, from ${r.from || 'nobody named'}, ${r.reason})`)}\n`);
  }
  return 0;
}
