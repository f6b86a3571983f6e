// Where a server's supervisor is found (its pid file, one per tmux server,
// named by the server's socket path) and the nudge that asks it to re-render
// now. A leaf module: spawn, stamp, takeover and sweep nudge without knowing
// the supervisor (docs/status.md#the-supervisor). Nothing here starts a process.
import { readFileSync, readdirSync } from 'node:fs';
import { readRegularFile } from './fs-safe';
import { join } from 'node:path';
import { runDir } from './context';
import { pidExists, procStartTicks } from './proc';

const PID_PREFIX = 'supervisor-';

/**
 * The server key: the server's socket path (tmux's #{socket_path}), base64url
 * encoded into a file name. Reversible and without crypto, which `stamp` (a
 * hook) would otherwise load just to name a file.
 */
export function serverKey(socketPath: string): string {
  return Buffer.from(socketPath).toString('base64url');
}

export function supervisorPidFile(home: string, socketPath: string): string {
  return join(runDir(home), `${PID_PREFIX}${serverKey(socketPath)}.pid`);
}

/** What a pid file holds: "<pid> <start ticks>", so a reused pid is never taken for the supervisor. */
export function pidFileContent(pid: number = process.pid): string {
  return `${pid} ${procStartTicks(pid) ?? '-'}\n`;
}

/** The live process a pid file names, or null (missing, stale, or pid reused). */
export function livePidFromFile(file: string): number | null {
  try {
    // Never a FIFO or a link: see docs/tasks.md#reading-files-safely.
    const [pidText, ticks] = readRegularFile(file, 256).trim().split(/\s+/);
    const pid = Number(pidText);
    if (!pidExists(pid)) return null;
    if (ticks && ticks !== '-' && String(procStartTicks(pid)) !== ticks) return null;
    return pid;
  } catch {
    return null;
  }
}

/** The pid of the live supervisor of a server, or null. */
export function runningSupervisor(home: string, socketPath: string): number | null {
  return livePidFromFile(supervisorPidFile(home, socketPath));
}

/**
 * The pid is a `tmux-fleet supervise` of this user, as /proc shows it (real
 * uid, and `supervise` among its arguments). A pid file is only a claim: one
 * forged in a run directory someone else could write must never make us
 * signal another process. Where /proc cannot tell: false (no nudge; the
 * supervisor also watches the files).
 */
export function isOwnSupervisor(pid: number): boolean {
  try {
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (uid === undefined || Number(uid) !== process.getuid?.()) return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('supervise');
  } catch {
    return false;
  }
}

/**
 * Asks live supervisors to re-render now (SIGUSR2). With a known socket path
 * only that server's supervisor is nudged, else every supervisor of this home.
 * Never throws: a nudge is a courtesy, the supervisor also watches the files.
 */
export function nudgeSupervisors(home: string, socketPath?: string | null): void {
  try {
    const files = socketPath
      ? [supervisorPidFile(home, socketPath)]
      : readdirSync(runDir(home))
          .filter((n) => n.startsWith(PID_PREFIX) && n.endsWith('.pid'))
          .map((n) => join(runDir(home), n));
    for (const file of files) {
      const pid = livePidFromFile(file);
      if (pid !== null && isOwnSupervisor(pid)) {
        try {
          process.kill(pid, 'SIGUSR2');
        } catch {
          /* gone meanwhile */
        }
      }
    }
  } catch {
    /* no run directory yet */
  }
}
