// Whether a registry row's process is alive: kill(pid, 0) and, where the row
// has procStart, the process start time equals it (pids get reused).
import { execa } from 'execa';
import { collapseSpaces, pidExists, procStartLstart } from '../proc';
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

/** Liveness of each row (by pid), with one start-time look-up for all of them. */
export async function aliveRows(rows: readonly RegistryRow[]): Promise<Map<number, boolean>> {
  const existing = rows.filter((r) => pidExists(r.pid));
  const needStart = existing.filter((r) => r.procStart !== undefined).map((r) => r.pid);
  const starts = needStart.length > 0 ? await startTimes(needStart) : new Map<number, string>();
  const alive = new Map<number, boolean>();
  for (const r of rows) {
    if (!pidExists(r.pid)) {
      alive.set(r.pid, false);
      continue;
    }
    if (r.procStart === undefined) {
      alive.set(r.pid, true);
      continue;
    }
    const actual = starts.get(r.pid);
    alive.set(r.pid, actual !== undefined && actual === collapseSpaces(r.procStart));
  }
  return alive;
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
    const alive = await aliveRows(rows);
    return rows.some((r) => alive.get(r.pid)) ? 'live' : 'gone';
  }
  return (await stamped()) ? 'live' : 'gone';
}
