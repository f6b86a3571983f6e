// An exclusive lock on one task directory: a `.lock` file created with O_EXCL
// holding the owner's pid and start time. A lock whose process is gone (or
// whose pid now belongs to another process) is stale and is broken.
import { close, link, open, rename, rm, stat, unlink, writeFile } from '../fs-async';
import { readRegularFile, UnsafeFileError } from '../fs-safe';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describeErrno, FleetError } from '../errors';
import { pidExists, procStartTicks } from '../proc';

const LOCK_NAME = '.lock';

function myIdentity(): string {
  return `${process.pid} ${procStartTicks(process.pid) ?? '-'}\n`;
}

function isStale(content: string): boolean {
  const [pidText, startText] = content.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (!pidExists(pid)) return true;
  if (startText && startText !== '-') {
    const now = procStartTicks(pid);
    if (now !== null && String(now) !== startText) return true; // pid reused
  }
  return false;
}

/** "<pid> <ticks>\n" is a few bytes. */
const MAX_LOCK_BYTES = 256;

/**
 * What a lock file holds; null when it is gone. A lock that is not a regular
 * file of ours (a FIFO, a link, something big) reads as INVALID: it is broken
 * like a stale one, never opened in a way that could block.
 */
const INVALID = '\0invalid';
function readLock(path: string): string | null {
  try {
    return readRegularFile(path, MAX_LOCK_BYTES);
  } catch (err) {
    if (err instanceof UnsafeFileError && err.code === 'ENOENT') return null;
    if (err instanceof UnsafeFileError && ['ELOOP', 'ENOTREG', 'EFBIG'].includes(err.code)) return INVALID;
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A lock's pid is written right after the file is created; an empty lock older
 * than this was left by a process killed in between, and is stale.
 */
const EMPTY_LOCK_GRACE_MS = 5_000;

async function isOldEmptyLock(path: string): Promise<boolean> {
  const st = await stat(path).catch(() => null);
  return st !== null && st.size === 0 && Date.now() - st.mtimeMs > EMPTY_LOCK_GRACE_MS;
}

/**
 * Whether a live process holds the lock of dir now (a read only, never a
 * wait): the supervisor's sign that a spawn is between its tmux call and its
 * record's write (docs/status.md#segments). A lock of a dead process, or one
 * that is no lock of ours, is not held; an empty one is, while it is young.
 */
export function lockHeld(dir: string): boolean {
  const lockPath = join(dir, LOCK_NAME);
  let holder: string | null;
  try {
    holder = readLock(lockPath);
  } catch {
    return false;
  }
  if (holder === null || holder === INVALID) return false;
  if (holder === '') {
    try {
      return Date.now() - statSync(lockPath).mtimeMs <= EMPTY_LOCK_GRACE_MS;
    } catch {
      return false;
    }
  }
  return !isStale(holder);
}

export interface LockOptions {
  timeoutMs?: number;
  /** Called each time the lock is found held by a live process, before waiting for it (tests count the waits). */
  onHeld?: () => void;
}

/** Runs fn while holding the lock of dir. */
export async function withDirLock<T>(dir: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const lockPath = join(dir, LOCK_NAME);
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  const identity = myIdentity();
  let delay = 2;
  for (;;) {
    if (await createLock(dir, lockPath, identity)) break;
    const holder = readLock(lockPath);
    if (holder === null) continue; // released between our open and read
    // An empty file is a lock being written right now, unless it has stayed empty for long.
    if (holder === INVALID || (holder === '' ? await isOldEmptyLock(lockPath) : isStale(holder))) {
      await breakStaleLock(lockPath, holder);
      continue;
    }
    if (Date.now() > deadline) {
      throw new FleetError(`could not lock ${dir}: held by pid ${/^\d+/.exec(holder)?.[0] ?? '?'}`);
    }
    opts.onHeld?.();
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

/**
 * Creates the lock file holding our identity: true when taken, false when
 * another holds it. A lock created but not written (a full disk) is removed
 * before the error: left empty, every later writer would wait for it.
 */
async function createLock(dir: string, lockPath: string, identity: string): Promise<boolean> {
  let fd: number;
  try {
    fd = await open(lockPath, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new FleetError(`cannot lock ${dir}: ${describeErrno(err)}`);
  }
  try {
    await writeFile(fd, identity);
  } catch (err) {
    await close(fd).catch(() => undefined);
    await unlink(lockPath).catch(() => undefined);
    throw new FleetError(`cannot lock ${dir}: ${describeErrno(err)}`);
  }
  await close(fd);
  return true;
}

/** Moves the stale lock aside atomically; only one breaker wins the rename. */
async function breakStaleLock(lockPath: string, seen: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${Date.now()}`;
  try {
    await rename(lockPath, aside);
  } catch {
    return;
  }
  const moved = readLock(aside);
  if (moved !== seen || (seen === '' && !(await isOldEmptyLock(aside)))) {
    // We moved a lock someone took after our read: put it back unless the slot was taken again.
    await link(aside, lockPath).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    return;
  }
  // A directory in the lock's place (made by hand or by another tool) goes too, with what it holds.
  await rm(aside, { recursive: true, force: true }).catch(() => undefined);
}
