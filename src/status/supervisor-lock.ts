// The supervisor's lock: one supervisor per tmux server, by its pid file in
// <home>/run (docs/status.md#the-supervisor). The file holds "<pid> <start
// ticks>", so a reused pid is never taken for a running supervisor.
import { mkdir, readFile, unlink, writeNewFile } from '../fs-async';
import { runDir } from '../context';
import { FleetError } from '../errors';
import { livePidFromFile, pidFileContent } from '../nudge';

/** Takes the pid file, or throws naming the pid that runs. A stale file (its process gone) is replaced. */
export async function acquirePidFile(home: string, pidFile: string, socketPath: string): Promise<void> {
  await mkdir(runDir(home), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeNewFile(pidFile, pidFileContent(), 'wx', 0o600, false);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const other = livePidFromFile(pidFile);
    if (other !== null) throw new FleetError(`a supervisor already runs for ${socketPath} (pid ${other})`);
    // Stale: its process is gone. Only remove it if it still says the same.
    const seen = await readFile(pidFile, 'utf8').catch(() => null);
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
