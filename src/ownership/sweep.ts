// `tmux-fleet sweep`: fill the owner of every pending task whose driverPane
// session carries the recorded nonce and a stamp. One list-sessions call for
// all tasks; each fill is a locked write that checks the task again.
import { registryDir, type Context } from '../context';
import { FleetError, errorMessage } from '../errors';
import { readRegistry } from '../registry/reader';
import type { RegistryRow } from '../registry/schema';
import { nudgeSupervisors } from '../nudge';
import { isPending } from '../tasks/schema';
import { listTasks, updateTask } from '../tasks/store';
import { Tmux } from '../tmux/client';
import { readSessionMarks, type NonceStamp } from '../tmux/session-marks';
import { fillPending, liveRowOf } from './stamp';
import { agentProcessLiveness, parseAgentProcess } from '../agents/agent-process';
import { isValidSid } from '../sid';

export interface SweepFill {
  slug: string;
  session: string;
  sid: string;
}

export interface SweepResult {
  filled: SweepFill[];
  /** Pending tasks still waiting (no nonce match or no stamp yet). */
  pending: string[];
  /** Task files that could not be read or written, one line each. */
  errors: string[];
}

/** Which pending tasks a snapshot resolves. Pure. */
export function sweepPlan(
  tasks: readonly { slug: string; task: { driverPane?: string; spawnNonce?: string; driverSid?: string; operatorSid?: string } }[],
  sessions: ReadonlyMap<string, NonceStamp>,
): { fill: SweepFill[]; waiting: string[] } {
  const fill: SweepFill[] = [];
  const waiting: string[] = [];
  for (const { slug, task } of tasks) {
    const pane = task.driverPane;
    const marks = pane ? sessions.get(pane) : undefined;
    if (pane && marks && task.spawnNonce && marks.nonce === task.spawnNonce && isValidSid(marks.stamp)) {
      fill.push({ slug, session: pane, sid: marks.stamp });
    } else waiting.push(slug);
  }
  return { fill, waiting };
}

export async function sweep(ctx: Context): Promise<SweepResult> {
  const entries = await listTasks(ctx.home);
  const errors = entries.flatMap((e) => (e.error ? [e.error.message] : []));
  const pending = entries.flatMap((e) => (e.task && isPending(e.task) ? [{ slug: e.slug, task: e.task }] : []));
  if (pending.length === 0) return { filled: [], pending: [], errors };

  const tmux = new Tmux(ctx.socket);
  let sessions: Map<string, NonceStamp>;
  try {
    sessions = await readSessionMarks(tmux);
  } catch (err) {
    throw new FleetError(`sweep: cannot read the sessions of ${tmux.describeServer()}: ${errorMessage(err)}`);
  }
  const { fill, waiting } = sweepPlan(pending, sessions);
  if (fill.length === 0) return { filled: [], pending: waiting, errors };

  const registry = await readRegistry(registryDir(ctx.env));
  const rows = registry.entries.map((e) => e.row);
  const rowOf = new Map<string, RegistryRow | undefined>();
  for (const f of fill) rowOf.set(f.sid, await liveRowOf(rows, f.sid));

  const filled: SweepFill[] = [];
  for (const f of fill) {
    try {
      let wrote = false;
      await updateTask(ctx.home, f.slug, (cur) => {
        const marks = sessions.get(f.session);
        // The agent process the stamp recorded, when it still runs (docs/ownership.md#the-stamps-process).
        const agent = parseAgentProcess(marks?.agent ?? '');
        const live = agent && agentProcessLiveness(agent) === 'live' ? agent : null;
        const next = marks ? fillPending(cur, { session: f.session, nonce: marks.nonce }, f.sid, rowOf.get(f.sid), live) : null;
        wrote = next !== null;
        return next;
      });
      if (wrote) filled.push(f);
    } catch (err) {
      errors.push(`${f.slug}: ${errorMessage(err)}`);
    }
  }
  if (filled.length > 0) nudgeSupervisors(ctx.home);
  return { filled, pending: waiting, errors };
}
