import { TaskFileError } from '../errors';
import { TaskSchema, type Task } from './schema';

/** Parses and validates task.json text; a TaskFileError names the file and the JSON position or zod path. */
export function parseTaskText(text: string, file: string): Task {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new TaskFileError(file, `not valid JSON (${msg.replace(/\s+/g, ' ')})`);
  }
  const result = TaskSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new TaskFileError(file, `invalid task record at ${path}: ${issue?.message ?? 'does not validate'}`);
  }
  return result.data;
}
