export * from './schema';
export { serializeTask } from './serialize';
export { parseTaskText } from './parse';
export { assertSlug, isValidSlug, SLUG_RULE } from './slug';
export { readTask, updateTask, listTasks, taskFile, TASK_FILE } from './store';
export type { TaskEntry, UpdateOptions } from './store';
export { withDirLock } from './lock';
