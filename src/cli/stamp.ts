// `tmux-fleet stamp`: the agents' SessionStart hook (docs/ownership.md#the-stamp).
// A hook's output reaches the agent and its failure would stop it: silent, exit 0.
import type { Context } from '../context';
import { runStamp } from '../ownership/stamp';
import { readHookStdin } from './stdin';
import type { Args } from './types';

/** The SessionStart hook: prints nothing (hook stdout reaches the agent), always exits 0. */
export async function run(args: Args, ctx: Context): Promise<number> {
  const stdinText = args.sid === undefined ? await readHookStdin() : '';
  await runStamp(ctx, { sidFlag: args.sid, stdinText });
  return 0;
}
