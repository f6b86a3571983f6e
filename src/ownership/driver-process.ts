// What the task records of its Driver, from the Driver's registry row, kept
// by the supervisor (which reads every row anyway):
// - its process (driverPid, driverProcStart), recorded late: stamp records it
//   from the new session id's row, but Claude Code may write that row only
//   after SessionStart has run, and without it a later /clear cannot be proven
//   the same process;
// - the job its tab parked the work on (driverJobId), while parked: a tab
//   killed while parked removes its row, and the job keeps the Driver live.
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
 * The task with the job its Driver's tab parked on (driverJobId) as the
 * owner's live row says now: set while parked, dropped when the work came
 * back. A tab killed while parked removes its row, and then this record is
 * what keeps the Driver live while its job runs (docs/ownership.md#liveness). Pure.
 */
export function withParkedJob(task: Task | null, row: LiveRow): Task | null {
  if (!task) return null;
  const owner = ownerSid(task);
  if (owner === '' || row.row.sessionId !== owner || row.liveness !== 'live') return null;
  const parked = row.row.parkedJobId || undefined;
  if (parked === task.driverJobId) return null;
  const next: Task = { ...task };
  if (parked) next.driverJobId = parked;
  else delete next.driverJobId;
  return next;
}

/** Both records at once: the process when missing, the parked job as it is now. Pure. */
export function withDriverRecords(task: Task | null, row: LiveRow): Task | null {
  const a = withLateProcess(task, row);
  const b = withParkedJob(a ?? task, row);
  return b ?? a;
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
    /** Told before each write (the supervisor's wakes then know the file's events for its own). */
    private readonly beforeWrite: (slug: string) => void = () => undefined,
  ) {}

  async record(tasks: readonly { slug: string; task?: Task | null }[], rows: readonly LiveRow[]): Promise<string[]> {
    const filled: string[] = [];
    for (const entry of tasks) {
      const task = entry.task ?? null;
      if (!task) continue;
      const owner = ownerSid(task);
      const row = owner === '' ? undefined : rowsBySession(rows).get(owner)?.find((r) => withDriverRecords(task, r) !== null);
      if (!row) continue;
      const key = `${entry.slug}\t${owner}\t${row.row.pid}\t${row.row.parkedJobId ?? ''}`;
      if (this.tried.has(key)) continue;
      this.tried.add(key);
      try {
        let wrote = false;
        this.beforeWrite(entry.slug);
        // Under the task's lock, against what the file holds now.
        await updateTask(this.home, entry.slug, (cur) => {
          const next = withDriverRecords(cur, row);
          wrote = next !== null;
          return next;
        });
        if (wrote) {
          filled.push(entry.slug);
          this.log(`task ${entry.slug}: recorded the Driver's process (pid ${row.row.pid}${row.row.parkedJobId ? `, parked on job ${row.row.parkedJobId}` : ''}) from its registry row`);
        }
      } catch (err) {
        this.log(`task ${entry.slug}: cannot record the Driver's process: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return filled;
  }
}
