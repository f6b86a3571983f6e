// The parent's record (docs/worktrees-and-pointer.md#the-parents-record): the task whose owner is the parent
// session id; the newest updatedAt wins. Invalid task files are skipped: a torn
// or foreign task.json must not stop a spawn, and is never written here.
import { listTasks, ownerSid, type Task } from '../tasks';

function time(value: string | undefined): number {
  if (!value) return Number.NEGATIVE_INFINITY;
  const t = Date.parse(value);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** Picks the parent's record from tasks; exported for tests and for callers that already listed the tasks. */
export function pickParentRecord(tasks: readonly Task[], parentSid: string): Task | null {
  if (parentSid === '') return null; // "" is every pending task's owner, never a parent
  let best: Task | null = null;
  for (const task of tasks) {
    if (ownerSid(task) !== parentSid) continue;
    if (
      best === null ||
      time(task.updatedAt) > time(best.updatedAt) ||
      // Ties (equal or missing times) fall to the slug, so the answer never depends on directory order.
      (time(task.updatedAt) === time(best.updatedAt) && task.slug > best.slug)
    ) {
      best = task;
    }
  }
  return best;
}

/** The parent's record in home, or null when no valid task is owned by parentSid. */
export async function findParentRecord(home: string, parentSid: string | null | undefined): Promise<Task | null> {
  if (!parentSid) return null;
  const entries = await listTasks(home);
  const tasks = entries.flatMap((e) => (e.task ? [e.task] : []));
  return pickParentRecord(tasks, parentSid);
}
