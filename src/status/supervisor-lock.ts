// The supervisor's lock: one supervisor per tmux server, by its pid file in
// <home>/run (docs/status.md#the-supervisor). The file holds "<pid> <start
// ticks>", so a reused pid is never taken for a running supervisor.
import { unlink, writeNewFile } from '../fs-async';
import { readRegularFile, UnsafeFileError } from '../fs-safe';
import { makePrivateDirs } from '../context';
import { FleetError } from '../errors';
import { livePidFromFile, pidFileContent } from '../nudge';

/** What a pid file holds; null when it is gone; '' when it is not a regular file (read safely: a FIFO would block). */
function readStalePidFile(pidFile: string): string | null {
  try {
    return readRegularFile(pidFile, 256);
  } catch (err) {
    return err instanceof UnsafeFileError && err.code === 'ENOENT' ? null : '';
  }
}

/** Takes the pid file, or throws naming the pid that runs. A stale file (its process gone) is replaced. */
export async function acquirePidFile(home: string, pidFile: string, socketPath: string): Promise<void> {
  makePrivateDirs(home);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeNewFile(pidFile, pidFileContent(), 'wx', 0o600, false);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const other = livePidFromFile(pidFile);
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
