// The task store: the only code that writes task.json.
import { statSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rm, unlink } from '../fs-async';
import { readRegularFileBytes, UnsafeFileError } from '../fs-safe';
import { join } from 'node:path';
import { taskDir, tasksDir } from '../context';
import { writeFileAtomic } from '../fs-atomic';
import { FleetError, TaskFileError } from '../errors';
import { withDirLock, type LockOptions } from './lock';
import { pidExists } from '../proc';
import { parseTaskText } from './parse';
import type { Task } from './schema';
import { serializeTask } from './serialize';
import { assertSlug, isValidSlug } from './slug';
import { suggestion } from '../suggest';

export const TASK_FILE = 'task.json';

/** A task record is a few kilobytes; anything this big is not one, and is not read. */
export const MAX_TASK_BYTES = 1024 * 1024;

export function taskFile(home: string, slug: string): string {
  return join(taskDir(home, slug), TASK_FILE);
}

/** Reads a task; null when it does not exist. Throws TaskFileError when it does not parse or validate. */
export async function readTask(home: string, slug: string): Promise<Task | null> {
  return readTaskAndBytes(home, slug)?.task ?? null;
}

/**
 * The task and the bytes it was read from (the serializer copies unchanged
 * values from them byte for byte, bytes that are no UTF-8 included).
 */
function readTaskAndBytes(home: string, slug: string): { task: Task; bytes: Buffer } | null {
  assertSlug(slug);
  const file = taskFile(home, slug);
  let bytes: Buffer;
  try {
    // Not followed if a link, not read if a FIFO or a device: see docs/tasks.md#reading-files-safely.
    bytes = readRegularFileBytes(file, MAX_TASK_BYTES);
  } catch (err) {
    if (err instanceof UnsafeFileError && err.code === 'ENOENT') return null;
    if (err instanceof UnsafeFileError) throw new TaskFileError(file, err.problem);
    throw err;
  }
  return { task: parseTaskText(bytes.toString('utf8'), file), bytes };
}

async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

export interface UpdateOptions {
  /** Create the task directory when the task does not exist yet. */
  create?: boolean;
}

/** The read-modify-write a holder of the task's lock may make (withTaskLock). */
export type LockedUpdate = (fn: (current: Task | null) => Task | null | Promise<Task | null>) => Promise<Task | null>;

/** The task's directory, made (0700) when asked to create, else it must exist. */
async function prepareTaskDir(home: string, slug: string, create: boolean | undefined): Promise<string> {
  assertSlug(slug);
  const dir = taskDir(home, slug);
  if (create) {
    await ensureDir(tasksDir(home));
    await ensureDir(dir);
  } else {
    try {
      await readdir(dir);
    } catch {
      throw await noSuchTask(home, slug);
    }
  }
  return dir;
}

/** The read-modify-write itself; the caller holds the task's lock. */
async function updateLocked(home: string, slug: string, dir: string, fn: (current: Task | null) => Task | null | Promise<Task | null>): Promise<Task | null> {
  const read = readTaskAndBytes(home, slug);
  const current = read?.task ?? null;
  const next = await fn(current);
  if (next === null) return current;
  const now = new Date().toISOString();
  const stamped: Task = { ...next, slug, createdAt: next.createdAt ?? now, updatedAt: now };
  await writeFileAtomic(taskFile(home, slug), read ? serializeTask(stamped, read.bytes) : serializeTask(stamped));
  await removeLeftovers(dir);
  return stamped;
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
  opts: UpdateOptions & LockOptions = {},
): Promise<Task | null> {
  const dir = await prepareTaskDir(home, slug, opts.create);
  return withDirLock(dir, () => updateLocked(home, slug, dir, fn), opts);
}

/**
 * Runs fn while holding the task's lock, for work that must not interleave
 * with another writer of the task between its steps (a spawn: from creating
 * the session to recording its nonce, docs/ownership.md#spawn). fn writes
 * through `update`, updateTask's read-modify-write without a second lock.
 */
export async function withTaskLock<T>(home: string, slug: string, fn: (update: LockedUpdate) => Promise<T>, opts: UpdateOptions & LockOptions = {}): Promise<T> {
  const dir = await prepareTaskDir(home, slug, opts.create);
  return withDirLock(dir, () => fn((change) => updateLocked(home, slug, dir, change)), opts);
}

/** `.task.json.<pid>.<time>.<n>.tmp` (src/fs-atomic.ts) and `.lock.stale-<pid>-<ms>` (./lock.ts): the writer's pid. */
const LEFTOVER_RE = /^(?:\.task\.json\.(\d+)\..*\.tmp|\.lock\.stale-(\d+)-\d+)$/;
/** A writer holds a temp file or a moved-aside lock for milliseconds; one this old, of a dead pid, is litter. */
export const LEFTOVER_AGE_MS = 60_000;

/**
 * Removes the temp files and moved-aside locks that a writer killed mid-way
 * (kill -9) left in a task directory: those of dead pids, older than a
 * minute. Runs after each write, under the lock. Best effort.
 */
export async function removeLeftovers(dir: string, now: number = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = LEFTOVER_RE.exec(name);
    if (!m) continue;
    const pid = Number(m[1] ?? m[2]);
    if (pidExists(pid)) continue;
    const path = join(dir, name);
    const st = await lstat(path).catch(() => null);
    if (!st || now - st.mtimeMs < LEFTOVER_AGE_MS) continue;
    // A lock directory moved aside (./lock.ts breaks one) goes with what it holds; a temp file is a file.
    if (st.isDirectory() && m[2] === undefined) continue;
    await (st.isDirectory() ? rm(path, { recursive: true, force: true }) : unlink(path)).then(
      () => removed.push(name),
      () => undefined,
    );
  }
  return removed;
}

/**
 * The error for a slug no task has (exit 1, never a verdict: 5 means "not yet",
 * and a typo never becomes a task): `no task "fix-logn" (did you mean
 * fix-login?)`, else the tasks there are (docs/ownership.md#output).
 */
export async function noSuchTask(home: string, slug: string): Promise<FleetError> {
  const names = await readdir(tasksDir(home)).catch((): string[] => []);
  const slugs = names.filter(isValidSlug).sort();
  const hint = suggestion(slug, slugs, 'tasks') || `no tasks in ${tasksDir(home)}`;
  return new FleetError(`no task "${slug}" (${hint})`);
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
  /** The last list: given back as it was while no task file changed, so a reader can tell "the same tasks" by identity. */
  private last: TaskEntry[] | null = null;

  constructor(readonly home: string) {}

  /**
   * `changed`: the tasks whose files may have changed (the supervisor's
   * watches); any other task already listed is taken as it was, without a
   * `stat`. Null: every task file is looked at.
   */
  async list(changed: ReadonlySet<string> | null = null): Promise<TaskEntry[]> {
    let names: string[];
    try {
      names = await readdir(tasksDir(this.home));
    } catch {
      this.cache.clear();
      this.last = null;
      return [];
    }
    const slugs = names.filter(isValidSlug).sort();
    const keep = new Set(slugs);
    for (const slug of [...this.cache.keys()]) if (!keep.has(slug)) this.cache.delete(slug);
    const entries = await Promise.all(
      slugs.map((slug): TaskEntry | null | Promise<TaskEntry | null> => {
        const known = changed === null || changed.has(slug) ? undefined : this.cache.get(slug);
        return known ? known.entry : this.look(slug);
      }),
    );
    const list = entries.filter((e): e is TaskEntry => e !== null);
    const last = this.last;
    if (last !== null && last.length === list.length && list.every((e, i) => e === last[i])) return last;
    this.last = list;
    return list;
  }

  /** One task's entry: from the cache while its file's signature is the same, else read. */
  private async look(slug: string): Promise<TaskEntry | null> {
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
  }
}
