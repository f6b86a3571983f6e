// tmux-fleet doctor [--session <name>]: one line per check, exit 1 when any fails.
import type { Context } from '../context';
import { renderCheck, runDoctor } from '../doctor/checks';
import type { Args } from './types';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const report = await runDoctor(ctx, { session: typeof args.session === 'string' ? args.session : undefined });
  if (ctx.json) writeStdout(`${JSON.stringify(report)}\n`);
  else writeStdout(report.checks.map((c) => `${renderCheck(c)}\n`).join(''));
  return report.ok ? 0 : 1;
}
