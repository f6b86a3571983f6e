// `tmux-fleet sid-of-pane`: the stamp of a tmux session, for scripts; exit 1
// when it has none, telling a missing session from an unstamped one.
import type { Context } from '../context';
import { ExitWith, FleetError } from '../errors';
import { Tmux } from '../tmux';
import { readSessionStamp } from '../tmux/session-marks';
import type { Args } from './types';
import { writeStdout } from './output';

export async function run(args: Args, ctx: Context): Promise<number> {
  const name = String(args.name);
  const tmux = new Tmux(ctx.socket);
  const read = await readSessionStamp(tmux, name);
  if ('tmuxError' in read) throw new FleetError(`tmux display-message on ${tmux.describeServer()}: ${read.tmuxError}`);
  if (!read.stamp) {
    // tmux expands a format for a session that does not exist to nothing, and exits 0: ask whether it exists.
    if (!(await tmux.hasSession(name))) throw new ExitWith(1, `no tmux session "${name}" on ${tmux.describeServer()}`);
    throw new ExitWith(1, `no stamp on tmux session "${name}" (${tmux.describeServer()})`);
  }
  writeStdout(ctx.json ? `${JSON.stringify({ session: name, sid: read.stamp })}\n` : `${read.stamp}\n`);
  return 0;
}
