// `tmux-fleet owner`: the judge's verdict as a line or one JSON object, and as
// the exit code (docs/ownership.md#the-judge).
import type { Context } from '../context';
import { verdictLine } from '../ownership/judge';
import { judgeTask, judgementJson } from '../ownership/owner';
import type { Args } from './types';
import { writeStdout } from './output';
import { printable } from '../text';

/** The judge: exit 0 (you own it), 9 (someone else does), 5 (nobody can be named yet). */
export async function run(args: Args, ctx: Context): Promise<number> {
  const j = await judgeTask(ctx, args.slug, args.as);
  const line = ctx.json ? JSON.stringify(judgementJson(j)) : printable(verdictLine(j.slug, j.decision));
  writeStdout(`${line}\n`);
  return j.decision.verdict;
}
