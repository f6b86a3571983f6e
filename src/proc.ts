// Process facts from the kernel, without starting a process where /proc exists.
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const HAVE_PROC = existsSync('/proc/self/stat');

/**
 * The process exists: /proc/<pid> where /proc exists (no exception for a dead
 * pid: the supervisor asks about hundreds of them, and a thrown ESRCH costs a
 * stack trace each), else kill(pid, 0) (EPERM still means it exists).
 */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (HAVE_PROC) return existsSync(`/proc/${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Above this many pids, one listing of /proc costs less than a look-up each (measured: 200 pids, 0.6 ms vs 0.05 ms). */
const LIST_PROC_ABOVE = 16;

/**
 * Which of `pids` exist. Many pids (the supervisor's registry rows): one
 * listing of /proc, where registry pids, being processes, are all listed.
 * Few: pidExists each.
 */
export function pidsExisting(pids: Iterable<number>): Map<number, boolean> {
  const unique = [...new Set(pids)];
  const out = new Map<number, boolean>();
  if (HAVE_PROC && unique.length > LIST_PROC_ABOVE) {
    let listed: Set<string> | null = null;
    try {
      listed = new Set(readdirSync('/proc'));
    } catch {
      listed = null;
    }
    if (listed !== null) {
      for (const pid of unique) out.set(pid, Number.isInteger(pid) && pid > 0 && listed.has(String(pid)));
      return out;
    }
  }
  for (const pid of unique) out.set(pid, pidExists(pid));
  return out;
}

/** Field 22 of /proc/<pid>/stat: start time in clock ticks after boot; null where unreadable. */
export function procStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may hold spaces and parentheses: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

let bootTimeCache: number | null | undefined;
/** btime of /proc/stat, seconds since the epoch. */
export function bootTime(): number | null {
  if (bootTimeCache !== undefined) return bootTimeCache;
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    bootTimeCache = m ? Number(m[1]) : null;
  } catch {
    bootTimeCache = null;
  }
  return bootTimeCache;
}

/** Linux's USER_HZ is 100 on every architecture procps supports. */
const CLOCK_TICKS = 100;

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

/** What `LC_ALL=C TZ=UTC ps -o lstart=` prints for an instant, spaces collapsed. */
export function formatLstart(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${pad2(d.getUTCHours())}:${pad2(
    d.getUTCMinutes(),
  )}:${pad2(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** Collapses runs of white space, as the registry's procStart is compared. */
export function collapseSpaces(s: string): string {
  return s.trim().replace(/\s+/g, ' ');
}

/** The process start time as ps's lstart, from /proc; null where /proc cannot tell. */
export function procStartLstart(pid: number): string | null {
  const ticks = procStartTicks(pid);
  const boot = bootTime();
  if (ticks === null || boot === null) return null;
  return formatLstart(boot + Math.floor(ticks / CLOCK_TICKS));
}

/** A process as it was when first seen: its pid and start time, so a reused pid is not taken for it. */
export interface ProcessIdentity {
  pid: number;
  start: number | null;
}

export function processIdentity(pid: number): ProcessIdentity {
  return { pid, start: procStartTicks(pid) };
}

/** The same process is still running (kill 0, and the start time where /proc tells it). */
export function stillRunning(p: ProcessIdentity): boolean {
  if (!pidExists(p.pid)) return false;
  const now = procStartTicks(p.pid);
  return p.start === null || now === null || now === p.start;
}
