// The Driver's process (driverPid, driverProcStart), recorded late. stamp
// records it from the registry row of the new session id, but Claude Code
// may write that row only after SessionStart has run. Without it a later
// /clear cannot be proven the same process and is not handed over, so the
// supervisor, which reads every row anyway, fills it in once the row is there.
import type { LiveRow } from '../registry/liveness';
import { rowsBySession } from '../registry/row-index';
import { ownerSid, type Task } from '../tasks/schema';
import { updateTask } from '../tasks/store';
import { withProcess } from './stamp';

/** The task with its Driver's process from `row`, when the task lacks one and the row is the owner's, alive, with a start time. Pure. */
export function withLateProcess(task: Task | null, row: LiveRow): Task | null {
  if (!task || task.driverPid !== undefined) return null;
  const owner = ownerSid(task);
  if (owner === '' || row.row.sessionId !== owner || row.liveness !== 'live' || !row.row.procStart) return null;
  return withProcess(task, row.row);
}

/**
 * Fills driverPid/driverProcStart of tasks whose owner's live row has
 * appeared. Each (task, owner, pid) is tried once, so a task that cannot be
 * written (a corrupt file) is not retried on every wake.
 */
export class DriverProcessRecorder {
  private readonly tried = new Set<string>();

  constructor(
    private readonly home: string,
    private readonly log: (message: string) => void,
  ) {}

  async record(tasks: readonly { slug: string; task?: Task | null }[], rows: readonly LiveRow[]): Promise<string[]> {
    const filled: string[] = [];
    for (const entry of tasks) {
      const task = entry.task ?? null;
      if (!task || task.driverPid !== undefined) continue;
      const owner = ownerSid(task);
      const row = owner === '' ? undefined : rowsBySession(rows).get(owner)?.find((r) => withLateProcess(task, r) !== null);
      if (!row) continue;
      const key = `${entry.slug}\t${owner}\t${row.row.pid}`;
      if (this.tried.has(key)) continue;
      this.tried.add(key);
      try {
        let wrote = false;
        // Under the task's lock, against what the file holds now.
        await updateTask(this.home, entry.slug, (cur) => {
          const next = withLateProcess(cur, row);
          wrote = next !== null;
          return next;
        });
        if (wrote) {
          filled.push(entry.slug);
          this.log(`task ${entry.slug}: recorded the Driver's process (pid ${row.row.pid}) from its registry row`);
        }
      } catch (err) {
        this.log(`task ${entry.slug}: cannot record the Driver's process: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return filled;
  }
}
