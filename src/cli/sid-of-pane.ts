import type { Context } from '../context';
import { ExitWith } from '../errors';
import { Tmux } from '../tmux';
import type { Args } from './spec';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const name = String(args.name);
  const tmux = new Tmux(ctx.socket);
  const sid = await tmux.display(name, '#{@claude_session_id}');
  if (!sid) throw new ExitWith(1, `no stamp on tmux session "${name}" (${tmux.describeServer()})`);
  writeStdout(ctx.json ? `${JSON.stringify({ session: name, sid })}\n` : `${sid}\n`);
  return 0;
}
