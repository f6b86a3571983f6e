// The supervisor's lock: one supervisor per tmux server, by its pid file in
// <home>/run (docs/status.md#the-supervisor). The file holds "<pid> <start
// ticks>", so a reused pid is never taken for a running supervisor.
import { unlink, writeNewFile } from '../fs-async';
import { readRegularFile, UnsafeFileError } from '../fs-safe';
import { makePrivateDirs } from '../context';
import { FleetError } from '../errors';
import { isOwnSupervisor, livePidFromFile, pidFileContent } from '../nudge';

/** What a pid file holds; null when it is gone; '' when it is not a regular file (read safely: a FIFO would block). */
function readStalePidFile(pidFile: string): string | null {
  try {
    return readRegularFile(pidFile, 256);
  } catch (err) {
    return err instanceof UnsafeFileError && err.code === 'ENOENT' ? null : '';
  }
}

/** How long a replaced supervisor gets to exit (it removes its tmux hooks and its pid file first). */
export const REPLACE_WAIT_MS = 10_000;

/**
 * Stops the supervisor `pid` (SIGTERM) and waits until the pid file no longer
 * names it; true when it is gone. Only a `tmux-fleet supervise` of this user
 * is ever signalled (isOwnSupervisor): a pid file is only a claim.
 */
async function stopSupervisor(pidFile: string, pid: number): Promise<boolean> {
  if (!isOwnSupervisor(pid)) return false;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return true; // gone meanwhile
  }
  const deadline = Date.now() + REPLACE_WAIT_MS;
  while (livePidFromFile(pidFile) === pid) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * Takes the pid file, or throws naming the pid that runs. A stale file (its
 * process gone) is replaced. `replace`: a running supervisor of this server is
 * stopped first (a new build's supervisor taking over, docs/status.md#updates);
 * `onReplaced` hears its pid.
 */
export async function acquirePidFile(home: string, pidFile: string, socketPath: string, replace = false, onReplaced?: (pid: number) => void): Promise<void> {
  makePrivateDirs(home);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeNewFile(pidFile, pidFileContent(), 'wx', 0o600, false);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const other = livePidFromFile(pidFile);
    if (other !== null && replace) {
      if (!(await stopSupervisor(pidFile, other))) throw new FleetError(`the supervisor of ${socketPath} (pid ${other}) did not stop, so it was not replaced`);
      onReplaced?.(other);
      continue;
    }
    if (other !== null) throw new FleetError(`a supervisor already runs for ${socketPath} (pid ${other})`);
    // Stale: its process is gone (or it is no pid file: a FIFO, a link, never opened). Only remove it if it still says the same.
    const seen = readStalePidFile(pidFile);
    if (seen !== null && livePidFromFile(pidFile) === null) await unlink(pidFile).catch(() => undefined);
  }
  throw new FleetError(`could not take ${pidFile}`);
}

/** Removes the pid file when it still names this process (a newer supervisor's file is left alone). */
export async function releasePidFile(pidFile: string): Promise<boolean> {
  if (livePidFromFile(pidFile) !== process.pid) return false;
  await unlink(pidFile).catch(() => undefined);
  return true;
}
