// The one serializer: every write of task.json goes through here.
import { ownerSid, type Task } from './schema';

/**
 * Renders a task for disk. The nonce lives only while the owner is unknown:
 * whenever driverSid is non-empty it is dropped here, so no caller can forget.
 */
export function serializeTask(task: Task): string {
  const out: Record<string, unknown> = { ...task };
  if (ownerSid(task) !== '') delete out.spawnNonce;
  return `${JSON.stringify(out, null, 2)}\n`;
}
