// `tmux-fleet tasks`: the fleet view as a table, or one JSON object; the same
// view as the dashboard and the status line (docs/status.md#dashboard).
import { registryDir, type Context } from '../context';
import { lastHandover, reasonFor } from '../ownership/judge';
import { resolveViewer } from '../ownership/owner';
import { agentWaits } from '../registry/hop';
import { archivedTable, listedTasks, repoOf, tasksTable } from '../status/table';
import { assertVerdictsTellable, readFleetView } from '../fleet/read';
import { Tmux } from '../tmux';
import type { Args } from './types';
import { writeStdout, writeStderr } from './output';
import { printable } from '../text';

/**
 * Every task not archived: owner, the verdict for the session in its pane,
 * liveness, hop, agent state, age, repository and branch; --archived: the
 * archived ones instead; --group: grouped by repository.
 */
export async function run(args: Args, ctx: Context): Promise<number> {
  const tmux = new Tmux(ctx.socket);
  // Each reason is worded for whoever runs this ("you" only in the Driver's own session).
  const [view, viewer] = await Promise.all([readFleetView(tmux, ctx.home, registryDir(ctx.env)), resolveViewer(tmux, ctx.env)]);
  const archived = Boolean(args.archived);
  const listed = listedTasks(view, archived);
  // Archived tasks are told without tmux: they have no verdict to tell wrong.
  if (!archived) assertVerdictsTellable({ ...view, tasks: listed }, tmux, 'tasks');
  if (ctx.json) {
    const tasks = listed.map((t) => ({
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
      repo: repoOf(t.task)?.path ?? null,
      branch: t.task?.branch ?? null,
      base: t.task?.base ?? null,
      worktree: t.task?.worktree ?? null,
      archivedAt: t.task?.archivedAt ?? null,
      done: t.task?.done ?? null,
      acceptance: t.task?.acceptance ?? [],
      createdAt: t.task?.createdAt ?? null,
      updatedAt: t.updatedAt,
      lastHandover: lastHandover(t.task),
      error: t.error,
    }));
    writeStdout(`${JSON.stringify({ tasks, tmuxError: view.tmuxError, registry: view.registry })}\n`);
    return 0;
  }
  const hidden = view.tasks.length - listed.length;
  if (listed.length === 0) {
    writeStdout(archived ? `no archived tasks in ${ctx.home}/tasks\n` : `no tasks in ${ctx.home}/tasks${hidden > 0 ? ` (${hidden} archived: tasks --archived)` : ''}\n`);
  } else {
    writeStdout(`${(archived ? archivedTable(view) : tasksTable(view, Date.now(), { group: Boolean(args.group) })).join('\n')}\n`);
    if (!archived && hidden > 0) writeStdout(`(${hidden} archived: tasks --archived)\n`);
  }
  for (const t of listed) if (t.error) writeStderr(`tmux-fleet: ${printable(t.error)}\n`);
  return 0;
}
