// Process facts from the kernel, without starting a process where /proc exists.
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, readlinkSync } from 'node:fs';

/** Whether this machine has /proc (Linux): process facts from it, else from kill(2) and ps. */
export const HAVE_PROC = existsSync('/proc/self/stat');

/** What /proc/<pid>/stat says of a process: the fields liveness and ancestry need. */
export interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), ... */
  state: string;
  /** Field 4: the parent's pid. */
  ppid: number;
  /** Field 22: start time in clock ticks after boot (what Claude Code writes as procStart on Linux). */
  startTicks: number;
}

/** /proc/<pid>/stat, parsed; null when the process is gone or /proc cannot tell. */
export function readProcStat(pid: number): ProcStat | null {
  if (!HAVE_PROC || !Number.isInteger(pid) || pid <= 0) return null;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm (field 2) may hold spaces and parentheses: split after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(rest[1]);
  const startTicks = Number(rest[19]);
  if (!rest[0] || !Number.isInteger(ppid) || !Number.isInteger(startTicks)) return null;
  return { state: rest[0], ppid, startTicks };
}

/** A zombie (Z) or dead (X) process has exited: only its pid is left until it is reaped. */
export function hasExited(stat: ProcStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/**
 * The process exists and has not exited. Where /proc exists: /proc/<pid>/stat
 * is readable and its state is not Z or X (a killed process whose parent does
 * not reap it stays a zombie, and kill(pid, 0) keeps succeeding). Elsewhere
 * kill(pid, 0) (EPERM still means it exists).
 * See docs/ownership.md#liveness.
 */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (HAVE_PROC) {
    // existsSync first: a dead pid costs no exception (the supervisor asks about hundreds).
    if (!existsSync(`/proc/${pid}`)) return false;
    const stat = readProcStat(pid);
    return stat !== null && !hasExited(stat);
  }
  return signalable(pid);
}

/**
 * kill(pid, 0): a process holds the pid (EPERM: one of another user), a zombie
 * included. The cheapest look there is (no path, no file): for a poll over
 * many pids, with the zombies' states read apart.
 */
export function signalable(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
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
 * The processes of `pids` that have not exited, with their /proc stat where
 * /proc exists (null elsewhere). Many pids (the supervisor's registry rows):
 * one listing of /proc first, so that dead pids cost nothing; then one read of
 * stat per listed pid, for its state and start time.
 */
export function processesRunning(pids: Iterable<number>): Map<number, ProcStat | null> {
  const unique = [...new Set(pids)].filter((pid) => Number.isInteger(pid) && pid > 0);
  const out = new Map<number, ProcStat | null>();
  if (!HAVE_PROC) {
    for (const pid of unique) if (pidExists(pid)) out.set(pid, null);
    return out;
  }
  let listed: Set<string> | null = null;
  if (unique.length > LIST_PROC_ABOVE) {
    try {
      listed = new Set(readdirSync('/proc'));
    } catch {
      listed = null;
    }
  }
  for (const pid of unique) {
    if (listed ? !listed.has(String(pid)) : !existsSync(`/proc/${pid}`)) continue;
    const stat = readProcStat(pid);
    if (stat !== null && !hasExited(stat)) out.set(pid, stat);
  }
  return out;
}

/** What /proc lists now, as names (one readdir; ask with `has(String(pid))`), or null without /proc. Zombies are listed too. */
export function listedPids(): Set<string> | null {
  if (!HAVE_PROC) return null;
  try {
    return new Set(readdirSync('/proc'));
  } catch {
    return null;
  }
}

/** Which of `pids` exist and have not exited (zombies count as gone). */
export function pidsExisting(pids: Iterable<number>): Map<number, boolean> {
  const list = [...pids];
  const running = processesRunning(list);
  return new Map(list.map((pid) => [pid, running.has(pid)]));
}

/** Field 22 of /proc/<pid>/stat: start time in clock ticks after boot; null where unreadable. */
export function procStartTicks(pid: number): number | null {
  return readProcStat(pid)?.startTicks ?? null;
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

let pidDomainCache: string | null | undefined;
/**
 * This machine's pid domain as Claude Code writes it in a registry row:
 * `linux:` + /etc/machine-id + `:` + the link text of /proc/self/ns/pid
 * (docs/hop.md#what-claude-code-writes). Null where either cannot be read.
 */
export function localPidDomain(): string | null {
  if (pidDomainCache !== undefined) return pidDomainCache;
  try {
    const machineId = readFileSync('/etc/machine-id', 'utf8').trim();
    const ns = readlinkSync('/proc/self/ns/pid');
    pidDomainCache = machineId !== '' ? `linux:${machineId}:${ns}` : null;
  } catch {
    pidDomainCache = null;
  }
  return pidDomainCache;
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

/** The first `max` bytes of a /proc file of a process (read no further), or null (gone, not ours, no /proc). */
function readProcFile(pid: number, name: string, max = 64 * 1024): string | null {
  if (!HAVE_PROC || !Number.isInteger(pid) || pid <= 0) return null;
  return readKernelFile(`/proc/${pid}/${name}`, max);
}

/** The first `max` bytes of a file of /proc (they tell no size: read until EOF or the cap), or null. */
function readKernelFile(path: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.allocUnsafe(max);
    let total = 0;
    while (total < max) {
      const n = readSync(fd, buf, total, max - total, null);
      if (n === 0) break;
      total += n;
    }
    return buf.toString('latin1', 0, total);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A process's argv from /proc/<pid>/cmdline (NUL-separated), or null. */
export function readCmdline(pid: number): string[] | null {
  const raw = readProcFile(pid, 'cmdline');
  if (raw === null) return null;
  const argv = Buffer.from(raw, 'latin1').toString('utf8').split('\0');
  if (argv[argv.length - 1] === '') argv.pop();
  return argv;
}

/** The environment a process was started with (/proc/<pid>/environ), or null where it cannot be read. */
export function readEnviron(pid: number): Map<string, string> | null {
  const raw = readProcFile(pid, 'environ', 256 * 1024);
  if (raw === null) return null;
  const env = new Map<string, string>();
  for (const entry of Buffer.from(raw, 'latin1').toString('utf8').split('\0')) {
    const i = entry.indexOf('=');
    if (i > 0) env.set(entry.slice(0, i), entry.slice(i + 1));
  }
  return env;
}

/** The process's name as the kernel keeps it (/proc/<pid>/comm, 15 characters at most), or null. */
export function readComm(pid: number): string | null {
  const raw = readProcFile(pid, 'comm', 64);
  return raw === null ? null : raw.replace(/\n$/, '');
}

/** The file a process executes (/proc/<pid>/exe), or null where it cannot be read. */
export function readExe(pid: number): string | null {
  if (!HAVE_PROC) return null;
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** Each open file descriptor of a process and what it points at (/proc/<pid>/fd), or null where it cannot be read. */
export function readFds(pid: number): { fd: number; target: string }[] | null {
  if (!HAVE_PROC || !Number.isInteger(pid) || pid <= 0) return null;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const out: { fd: number; target: string }[] = [];
  for (const fd of fds) {
    try {
      out.push({ fd: Number(fd), target: readlinkSync(`/proc/${pid}/fd/${fd}`) });
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

/**
 * Whether the open file behind a process's descriptor holds a lock: the
 * `lock:` lines of /proc/<pid>/fdinfo/<fd> (Linux 4.1 and later). The kernel
 * lists there the locks of that open file only (an flock belongs to the open
 * file, whichever process took it), never the machine's: /proc/locks lists
 * every lock of every user, and reading it costs the time of all of them.
 */
export function fdHoldsLock(pid: number, fd: number): boolean {
  const info = readProcFile(pid, `fdinfo/${fd}`, 4096);
  return info !== null && /^lock:\s+\d+:\s+(?:FLOCK|OFDLCK|POSIX)\s/m.test(info);
}

/** Milliseconds since boot (/proc/uptime), for a process's age from its start ticks; null without /proc. */
export function readUptimeMs(): number | null {
  const text = HAVE_PROC ? readKernelFile('/proc/uptime', 64) : null;
  const s = text === null ? NaN : Number(text.split(' ')[0]);
  return Number.isFinite(s) ? s * 1000 : null;
}
