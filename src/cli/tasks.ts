// `tmux-fleet tasks`: the fleet view as a table, or one JSON object; the same
// view as the dashboard and the status line (docs/status.md#dashboard).
import { registryDir, type Context } from '../context';
import { lastHandover, reasonFor } from '../ownership/judge';
import { resolveViewer } from '../ownership/owner';
import { agentWaits } from '../registry/hop';
import { tasksTable } from '../status/table';
import { assertVerdictsTellable, readFleetView } from '../status/view';
import { Tmux } from '../tmux';
import type { Args } from './types';
import { writeStdout, writeStderr } from './output';
import { printable } from '../text';

/** Every task: owner, the verdict for the session in its pane, liveness, hop, agent state, age. */
export async function run(_args: Args, ctx: Context): Promise<number> {
  const tmux = new Tmux(ctx.socket);
  // Each reason is worded for whoever runs this ("you" only in the Driver's own session).
  const [view, viewer] = await Promise.all([readFleetView(tmux, ctx.home, registryDir(ctx.env)), resolveViewer(tmux, ctx.env)]);
  assertVerdictsTellable(view, tmux, 'tasks');
  if (ctx.json) {
    const tasks = view.tasks.map((t) => ({
      slug: t.slug,
      owner: t.owner || null,
      session: t.session,
      verdict: t.decision.verdict,
      reason: reasonFor(t.slug, t.decision, viewer),
      liveness: t.decision.liveness,
      hop: t.hop && t.hop.following ? { base: t.hop.base, attached: t.hop.attached, jobId: t.hop.jobId, intent: t.hop.agent?.job?.intent ?? null } : null,
      agent: t.state
        ? {
            sessionId: t.state.sessionId,
            status: t.state.status,
            waitingFor: t.state.waitingFor,
            needs: t.state.needs ?? null,
            tempo: t.state.tempo ?? null,
            waits: agentWaits(t.state),
          }
        : null,
      agentKind: t.agent,
      label: t.task?.label ?? null,
      acceptance: t.task?.acceptance ?? [],
      createdAt: t.task?.createdAt ?? null,
      updatedAt: t.updatedAt,
      lastHandover: lastHandover(t.task),
      error: t.error,
    }));
    writeStdout(`${JSON.stringify({ tasks, tmuxError: view.tmuxError, registry: view.registry })}\n`);
    return 0;
  }
  if (view.tasks.length === 0) {
    writeStdout(`no tasks in ${ctx.home}/tasks\n`);
  } else {
    writeStdout(`${tasksTable(view).join('\n')}\n`);
  }
  for (const t of view.tasks) if (t.error) writeStderr(`tmux-fleet: ${printable(t.error)}\n`);
  return 0;
}
