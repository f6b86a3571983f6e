import { registryDir, type Context } from '../context';
import { runDashboard } from '../status/dashboard-tui';
import { Tmux } from '../tmux';
import type { Args } from './types';

/** The popup: every task and agent session; Enter switches the client there. */
export async function run(_args: Args, ctx: Context): Promise<number> {
  return runDashboard({
    tmux: new Tmux(ctx.socket),
    home: ctx.home,
    registry: registryDir(ctx.env),
    input: process.stdin,
    output: process.stdout,
    client: ctx.env.TMUX_FLEET_CLIENT || undefined,
  });
}
