// Whether a registry row's process is alive: kill(pid, 0) and, where the row
// has procStart, the process start time equals it (pids get reused).
import { collapseSpaces, pidsExisting, procStartLstart } from '../proc';
import type { RegistryRow } from './schema';

/** Start times (lstart, spaces collapsed) of pids: /proc where it exists, else one ps call for all. */
export async function startTimes(pids: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const missing: number[] = [];
  for (const pid of new Set(pids)) {
    const t = procStartLstart(pid);
    if (t !== null) out.set(pid, t);
    else missing.push(pid);
  }
  if (missing.length > 0) {
    // Loaded here: /proc answers on Linux, and execa costs start-up time (SPEC section 10).
    const { execa } = await import('execa');
    const r = await execa('ps', ['-o', 'pid=,lstart=', '-p', missing.join(',')], {
      env: { LC_ALL: 'C', TZ: 'UTC' },
      reject: false,
    });
    for (const line of String(r.stdout).split('\n')) {
      const m = /^\s*(\d+)\s+(.+)$/.exec(line);
      if (m) out.set(Number(m[1]), collapseSpaces(m[2] as string));
    }
  }
  return out;
}

/**
 * Liveness of each row, index-aligned with `rows`, with one start-time look-up
 * for all of them. Two rows naming the same pid may differ (one has a stale
 * procStart), so the answer is per row, not per pid.
 */
export async function rowsAlive(rows: readonly RegistryRow[]): Promise<boolean[]> {
  const existing = pidsExisting(rows.map((r) => r.pid));
  const exists = rows.map((r) => existing.get(r.pid) === true);
  const needStart = rows.filter((r, i) => exists[i] && r.procStart !== undefined).map((r) => r.pid);
  const starts = needStart.length > 0 ? await startTimes(needStart) : new Map<number, string>();
  return rows.map((r, i) => {
    if (!exists[i]) return false;
    if (r.procStart === undefined) return true;
    const actual = starts.get(r.pid);
    return actual !== undefined && actual === collapseSpaces(r.procStart);
  });
}

/** Liveness by pid (a pid is alive when any row naming it is). Prefer rowsAlive. */
export async function aliveRows(rows: readonly RegistryRow[]): Promise<Map<number, boolean>> {
  const flags = await rowsAlive(rows);
  const alive = new Map<number, boolean>();
  rows.forEach((r, i) => alive.set(r.pid, Boolean(alive.get(r.pid)) || Boolean(flags[i])));
  return alive;
}

/** A row with its liveness: what Follow and the hop tracker take. */
export interface LiveRow {
  row: RegistryRow;
  alive: boolean;
}

/** Every row of a snapshot with its liveness (one start-time look-up for all). */
export async function liveRows(snapshot: { entries: readonly { row: RegistryRow }[] }): Promise<LiveRow[]> {
  const rows = snapshot.entries.map((e) => e.row);
  const flags = await rowsAlive(rows);
  return rows.map((row, i) => ({ row, alive: Boolean(flags[i]) }));
}

export type Liveness = 'live' | 'gone' | 'unknown';

/**
 * Liveness of a session id: live when a registry row holds it and its process
 * is alive, or, with no row at all, a tmux session carries it as its stamp;
 * gone when neither; unknown when the registry cannot be read.
 * `stamped` is consulted only when no row holds the id (pass a function so the
 * caller can skip the tmux read when it is not needed).
 */
export async function sessionLiveness(
  sid: string,
  snapshot: { readable: boolean; entries: readonly { row: RegistryRow }[] },
  stamped: () => Promise<boolean>,
): Promise<Liveness> {
  if (!snapshot.readable) return 'unknown';
  const rows = snapshot.entries.map((e) => e.row).filter((r) => r.sessionId === sid);
  if (rows.length > 0) {
    const alive = await rowsAlive(rows);
    return alive.some(Boolean) ? 'live' : 'gone';
  }
  return (await stamped()) ? 'live' : 'gone';
}

/**
 * Liveness for a long-lived reader: a pid's start time is read once and kept
 * while the pid keeps existing (kill 0 on every call); a pid seen gone is
 * forgotten, so a reused pid has its start time read afresh.
 */
export class LivenessCache {
  private starts = new Map<number, string>();
  /** Whether each pid of the last call's rows existed: the supervisor watches these for deaths. */
  lastExists: ReadonlyMap<number, boolean> = new Map();

  async liveRows(snapshot: { entries: readonly { row: RegistryRow }[] }): Promise<LiveRow[]> {
    const rows = snapshot.entries.map((e) => e.row);
    const exists = pidsExisting(rows.map((r) => r.pid));
    this.lastExists = exists;
    for (const pid of [...this.starts.keys()]) if (!exists.get(pid)) this.starts.delete(pid);
    const need = rows.filter((r) => exists.get(r.pid) && r.procStart !== undefined && !this.starts.has(r.pid)).map((r) => r.pid);
    if (need.length > 0) for (const [pid, t] of await startTimes(need)) this.starts.set(pid, t);
    return rows.map((row) => {
      if (!exists.get(row.pid)) return { row, alive: false };
      if (row.procStart === undefined) return { row, alive: true };
      const actual = this.starts.get(row.pid);
      return { row, alive: actual !== undefined && actual === collapseSpaces(row.procStart) };
    });
  }
}
