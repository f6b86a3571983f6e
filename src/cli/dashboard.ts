// `tmux-fleet dashboard`: the popup (docs/status.md#dashboard).
import { registryDir, type Context } from '../context';
import { resolveViewer } from '../ownership/owner';
import { restoreSummary, restoreTasks } from '../ownership/restore';
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
    // `r` on a task whose Driver is gone, `R` for all: what `tmux-fleet restore [<slug>]` does.
    restore: async (slugs) => {
      const r = await restoreTasks(ctx, { slugs: slugs ?? [] });
      const one = slugs?.length === 1 ? r.items.find((i) => i.action === 'restored') : undefined;
      const refused = r.items.find((i) => i.action === 'refused');
      return { summary: refused && slugs?.length === 1 ? `${refused.slug}: ${refused.reason}` : restoreSummary(r), session: one?.session ?? null };
    },
    // The popup's own session ($TMUX names it; a popup has no pane): "you" only where it is the Driver's.
    viewer: () => resolveViewer(tmux, ctx.env),
    // `r` on an archived task: what `tmux-fleet reopen <slug> --resume` does.
    reopen: async (slug) => {
      const { reopenTask } = await import('../actions/finish');
      const r = await reopenTask(ctx, slug, { resume: true });
      return r.spawned?.session ?? '';
    },
    // `s`: what `tmux-fleet send <target> <text>` does; a refusal is the message shown.
    send: async (target, text) => {
      const { sendPrompt } = await import('../actions/send');
      const r = await sendPrompt(ctx, target, text);
      return `sent to ${r.jobId ? `job ${r.jobId}` : `${r.slug} in ${r.session}`}${r.taken ? '' : ' (its screen did not change yet)'}`;
    },
  });
}
