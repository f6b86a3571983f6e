// `tmux-fleet dashboard`: the popup (docs/status.md#dashboard).
import { registryDir, type Context } from '../context';
import { resolveViewer } from '../ownership/owner';
import { spawnTask } from '../ownership/spawn';
import { runDashboard } from '../dashboard/tui';
import { Tmux } from '../tmux';
import type { Args } from './types';

/** The popup: every task and agent; Enter switches the client there or opens a job. */
export async function run(_args: Args, ctx: Context): Promise<number> {
  const tmux = new Tmux(ctx.socket);
  return runDashboard({
    tmux,
    home: ctx.home,
    registry: registryDir(ctx.env),
    input: process.stdin,
    output: process.stdout,
    client: ctx.env.TMUX_FLEET_CLIENT || undefined,
    // `r` on a task whose owner is gone: what `tmux-fleet spawn <slug> --replace --resume` does.
    resume: async (slug) => (await spawnTask(ctx, slug, { replace: true, resume: true })).session,
    // The popup's own session ($TMUX names it; a popup has no pane): "you" only where it is the Driver's.
    viewer: () => resolveViewer(tmux, ctx.env),
  });
}
