// `tmux-fleet event --agent <agent>`: the hook of the agents' state events
// (docs/ownership.md#what-each-agent-tells). Silent, exit 0, like stamp.
import type { Context } from '../context';
import { recordHookEvent } from '../agents/signals';
import { isAgentKind } from '../agents/kind';
import { appendLog } from '../log';
import { UsageError } from '../errors';
import { readHookStdin } from './stdin';
import type { Args } from './types';

export async function run(args: Args, ctx: Context): Promise<number> {
  if (!isAgentKind(args.agent)) throw new UsageError(`event: --agent must be claude, codex or gemini`);
  const stdinText = await readHookStdin();
  recordHookEvent(ctx.home, args.agent, stdinText, ctx.env.TMUX_PANE, (m) => appendLog(ctx.home, 'event', m));
  return 0;
}
