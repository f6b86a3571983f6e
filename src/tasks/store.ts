// The task store: the only code that writes task.json.
import { statSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir } from '../fs-async';
import { join } from 'node:path';
import { taskDir, tasksDir } from '../context';
import { writeFileAtomic } from '../fs-atomic';
import { FleetError, TaskFileError } from '../errors';
import { withDirLock } from './lock';
import { parseTaskText } from './parse';
import type { Task } from './schema';
import { serializeTask } from './serialize';
import { assertSlug, isValidSlug } from './slug';

export const TASK_FILE = 'task.json';

export function taskFile(home: string, slug: string): string {
  return join(taskDir(home, slug), TASK_FILE);
}

/** Reads a task; null when it does not exist. Throws TaskFileError when it does not parse or validate. */
export async function readTask(home: string, slug: string): Promise<Task | null> {
  assertSlug(slug);
  const file = taskFile(home, slug);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new TaskFileError(file, `cannot be read (${(err as Error).message})`);
  }
  return parseTaskText(text, file);
}

async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

export interface UpdateOptions {
  /** Create the task directory when the task does not exist yet. */
  create?: boolean;
}

/**
 * Locked read-modify-write. fn gets the current task (null when there is none)
 * and returns the new one, or null to write nothing. A task.json that does not
 * parse or validate is never overwritten: TaskFileError is thrown before fn runs.
 */
export async function updateTask(
  home: string,
  slug: string,
  fn: (current: Task | null) => Task | null | Promise<Task | null>,
  opts: UpdateOptions = {},
): Promise<Task | null> {
  assertSlug(slug);
  const dir = taskDir(home, slug);
  if (opts.create) {
    await ensureDir(tasksDir(home));
    await ensureDir(dir);
  } else {
    try {
      await readdir(dir);
    } catch {
      throw new FleetError(`no task "${slug}" in ${tasksDir(home)}`);
    }
  }
  return withDirLock(dir, async () => {
    const current = await readTask(home, slug);
    const next = await fn(current);
    if (next === null) return current;
    const now = new Date().toISOString();
    const stamped: Task = { ...next, slug, createdAt: next.createdAt ?? now, updatedAt: now };
    await writeFileAtomic(taskFile(home, slug), serializeTask(stamped));
    return stamped;
  });
}

export interface TaskEntry {
  slug: string;
  file: string;
  task?: Task;
  error?: TaskFileError;
}

/** Every task directory with a task.json, sorted by slug; invalid files are reported, not thrown. */
export async function listTasks(home: string): Promise<TaskEntry[]> {
  let names: string[];
  try {
    names = await readdir(tasksDir(home));
  } catch {
    return [];
  }
  const entries = await Promise.all(
    names.filter(isValidSlug).sort().map(async (slug): Promise<TaskEntry | null> => {
      const file = taskFile(home, slug);
      try {
        const task = await readTask(home, slug);
        return task ? { slug, file, task } : null;
      } catch (err) {
        if (err instanceof TaskFileError) return { slug, file, error: err };
        throw err;
      }
    }),
  );
  return entries.filter((e): e is TaskEntry => e !== null);
}

/**
 * listTasks for a long-lived reader: a task.json whose inode, size and mtime
 * are unchanged is not read or validated again (the supervisor wakes often;
 * tasks rarely change). Every write renames a new file in, so the inode changes.
 */
export class CachedTaskLister {
  private cache = new Map<string, { sig: string; entry: TaskEntry | null }>();

  constructor(readonly home: string) {}

  async list(): Promise<TaskEntry[]> {
    let names: string[];
    try {
      names = await readdir(tasksDir(this.home));
    } catch {
      this.cache.clear();
      return [];
    }
    const slugs = names.filter(isValidSlug).sort();
    const keep = new Set(slugs);
    for (const slug of [...this.cache.keys()]) if (!keep.has(slug)) this.cache.delete(slug);
    const entries = await Promise.all(
      slugs.map(async (slug): Promise<TaskEntry | null> => {
        const file = taskFile(this.home, slug);
        const st = statSync(file, { throwIfNoEntry: false });
        if (!st) {
          this.cache.delete(slug);
          return null;
        }
        const sig = `${st.ino}:${st.size}:${st.mtimeMs}`;
        const cached = this.cache.get(slug);
        if (cached && cached.sig === sig) return cached.entry;
        let entry: TaskEntry | null;
        try {
          const task = await readTask(this.home, slug);
          entry = task ? { slug, file, task } : null;
        } catch (err) {
          if (!(err instanceof TaskFileError)) throw err;
          entry = { slug, file, error: err };
        }
        this.cache.set(slug, { sig, entry });
        return entry;
      }),
    );
    return entries.filter((e): e is TaskEntry => e !== null);
  }
}
