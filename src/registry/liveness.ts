// Liveness as Claude Code itself decides it (docs/ownership.md#liveness):
// the row's process exists and has not exited (a zombie is gone), and where
// the row has procStart, the process's start time in the format it was
// written equals it (pids get reused). A row that cannot be checked here
// (another pid domain, or only a Windows procStartFt) is `unknown`, never
// `gone`. This is the one place the judge, Follow, the supervisor, doctor and
// the /clear proof get a row's liveness from.
import type { JobState } from './jobs';
import {
  bootTime,
  collapseSpaces,
  formatLstart,
  hasExited,
  HAVE_PROC,
  listedPids,
  localPidDomain,
  processesRunning,
  readProcStat,
  signalable,
  type ProcStat,
} from '../proc';
import { rowsByJob } from './row-index';
import type { RegistryRow } from './schema';

export type Liveness = 'live' | 'gone' | 'unknown';

/** What the kernel says of the rows' processes, read once for all of them. */
export interface ProcessFacts {
  /** The pids that exist and have not exited, with their /proc stat (null where there is no /proc). */
  running: ReadonlyMap<number, ProcStat | null>;
  /** A running pid's start time as `LC_ALL=C TZ=UTC ps -o lstart=` prints it (spaces collapsed), or null. */
  lstart: ReadonlyMap<number, string>;
  /** This machine's pid domain, or null when it cannot be read (rows are then taken as local). */
  domain: string | null;
}

/** Linux's USER_HZ is 100 on every architecture procps supports. */
const CLOCK_TICKS = 100;

/** procStart written as /proc/<pid>/stat field 22 (Linux); anything else is lstart text (macOS, older notes). */
const TICKS_RE = /^\d+$/;

/** A row's liveness from facts already read. Pure; the table of docs/ownership.md#liveness. */
export function rowLiveness(row: RegistryRow, facts: ProcessFacts): Liveness {
  const domain = typeof row.pidDomain === 'string' ? row.pidDomain : undefined;
  if (domain !== undefined && facts.domain !== null && domain !== facts.domain) return 'unknown';
  if (!facts.running.has(row.pid)) return 'gone';
  const written = row.procStart;
  if (written === undefined) return row.procStartFt !== undefined ? 'unknown' : 'live';
  const trimmed = written.trim();
  if (TICKS_RE.test(trimmed)) {
    const stat = facts.running.get(row.pid);
    if (!stat) return 'unknown';
    return String(stat.startTicks) === trimmed ? 'live' : 'gone';
  }
  const actual = facts.lstart.get(row.pid);
  if (actual === undefined) return 'unknown';
  return actual === collapseSpaces(trimmed) ? 'live' : 'gone';
}

/** Start times as lstart text, from /proc's ticks where there is /proc, else one ps call for all. */
async function lstartTimes(pids: readonly number[], running: ReadonlyMap<number, ProcStat | null>): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const viaPs: number[] = [];
  const boot = bootTime();
  for (const pid of new Set(pids)) {
    const stat = running.get(pid);
    if (stat && boot !== null) out.set(pid, formatLstart(boot + Math.floor(stat.startTicks / CLOCK_TICKS)));
    else viaPs.push(pid);
  }
  if (viaPs.length > 0) {
    // Loaded here: /proc answers on Linux, and execa costs start-up time (docs/budgets.md).
    const { execa } = await import('execa');
    const r = await execa('ps', ['-o', 'pid=,lstart=', '-p', viaPs.join(',')], { env: { LC_ALL: 'C', TZ: 'UTC' }, reject: false });
    for (const line of String(r.stdout).split('\n')) {
      const m = /^\s*(\d+)\s+(.+)$/.exec(line);
      if (m) out.set(Number(m[1]), collapseSpaces(m[2] as string));
    }
  }
  return out;
}

/** The facts every row's liveness needs: one look at /proc (or ps) for all of them. */
export async function processFacts(rows: readonly RegistryRow[]): Promise<ProcessFacts> {
  const running = processesRunning(rows.map((r) => r.pid));
  const textRows = rows.filter((r) => running.has(r.pid) && r.procStart !== undefined && !TICKS_RE.test(r.procStart.trim()));
  const lstart = textRows.length > 0 ? await lstartTimes(textRows.map((r) => r.pid), running) : new Map<number, string>();
  return { running, lstart, domain: localPidDomain() };
}

/** A row with its liveness: what Follow, the judge and the status take. */
export interface LiveRow {
  row: RegistryRow;
  liveness: Liveness;
  /** Present as Claude Code counts it: not `gone` (an unknown row is not taken for dead). */
  alive: boolean;
  /** The process's start ticks, when the reader read them (the pane proof uses them, not reading /proc again). */
  startTicks?: number;
  /** A job's own state file, joined by job id (src/registry/jobs.ts), when the row is a job that has one. */
  job?: JobState;
}

export function withLiveness(row: RegistryRow, liveness: Liveness): LiveRow {
  return { row, liveness, alive: liveness !== 'gone' };
}

/** Every row with its liveness, index-aligned with `rows`. */
export async function rowsWithLiveness(rows: readonly RegistryRow[]): Promise<LiveRow[]> {
  const facts = await processFacts(rows);
  return rows.map((row) => withLiveness(row, rowLiveness(row, facts)));
}

/** Every row of a snapshot with its liveness. */
export async function liveRows(snapshot: { entries: readonly { row: RegistryRow }[] }): Promise<LiveRow[]> {
  return rowsWithLiveness(snapshot.entries.map((e) => e.row));
}

const RANK: Record<Liveness, number> = { gone: 0, unknown: 1, live: 2 };

/** The most alive of several answers (live, then unknown, then gone); null for none. */
export function mostAlive(list: Iterable<Liveness>): Liveness | null {
  let best: Liveness | null = null;
  for (const l of list) if (best === null || RANK[l] > RANK[best]) best = l;
  return best;
}

/** A task's record of its Driver's process (driverPid, driverProcStart), taken from its registry row. */
export interface RecordedProcess {
  sid: string;
  pid?: number;
  procStart?: string;
  /** The job the Driver's tab parked its work on: live while a live row runs it (a tab killed while parked removes its row). */
  jobId?: string;
}

/**
 * The liveness of recorded Driver processes, by session id: what decides when
 * no registry row holds the id any more (an agent that exited removes its
 * row, while its tmux session may still carry the stamp).
 */
export async function recordedLiveness(recorded: readonly RecordedProcess[], rows: readonly LiveRow[] = []): Promise<Map<string, Liveness>> {
  const procRows: RegistryRow[] = recorded
    .filter((r) => r.pid !== undefined)
    .map((r) => ({ pid: r.pid as number, sessionId: r.sid, ...(r.procStart ? { procStart: r.procStart } : {}) }));
  const live = procRows.length > 0 ? await rowsWithLiveness(procRows) : [];
  const out = new Map<string, Liveness>();
  const add = (sid: string, l: Liveness) => out.set(sid, mostAlive([out.get(sid) ?? 'gone', l]) as Liveness);
  for (const r of recorded) out.set(r.sid, out.get(r.sid) ?? 'gone');
  for (const r of live) add(r.row.sessionId, r.liveness);
  for (const r of recorded) {
    if (!r.jobId) continue;
    const job = mostAlive((rowsByJob(rows).get(r.jobId) ?? []).map((x) => x.liveness));
    if (job !== null) add(r.sid, job);
  }
  return out;
}

/** The liveness of recorded agent processes (pid and start ticks; zombies are gone). */
export async function processesLiveness(list: readonly { pid: number; start: string }[]): Promise<Liveness[]> {
  if (list.length === 0) return [];
  const live = await rowsWithLiveness(list.map((p) => ({ pid: p.pid, sessionId: '', procStart: p.start })));
  return live.map((r) => r.liveness);
}

/** How long the supervisor trusts a process's state (running, not a zombie) before reading it again. */
export const STATE_RECHECK_MS = 10_000;

/**
 * At most this many states read again by one poll (goneAmong), in turn: the
 * poll's cost stays the same with 500 processes to watch as with 50
 * (docs/status.md#incremental-wakes). A zombie among 500 is seen within 20
 * polls (40 s at the default interval), among 50 within STATE_RECHECK_MS.
 */
export const RECHECKS_PER_POLL = 25;

/** Whether a kept state is due to be read again. */
const stale = (seen: { checkedAt: number }, t: number) => t - seen.checkedAt >= STATE_RECHECK_MS;

/**
 * Liveness for a long-lived reader (the supervisor), with the same answers as
 * liveRows but not the same cost: reading /proc/<pid>/stat costs 20-110 µs a
 * process (measured, loaded machine), and the supervisor sees hundreds of rows
 * on every wake. So a process's stat is read when it is first seen and again
 * after STATE_RECHECK_MS (a killed process that nobody reaps stays a zombie);
 * in between, one listing of /proc tells which pids still exist. A pid that
 * leaves the listing is forgotten, so a reused pid is read afresh.
 */
export class LivenessReader {
  /** Whether each pid of the last call's rows was running. */
  lastExists: ReadonlyMap<number, boolean> = new Map();
  private readonly known = new Map<number, { stat: ProcStat; checkedAt: number }>();
  /** The /proc listing of the last liveRows call, reused by `running` in the same wake. */
  private lastListed: ReadonlySet<string> | null = null;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly recheckBudget = RECHECKS_PER_POLL,
  ) {}

  private statOf(pid: number, listed: ReadonlySet<string> | null, t: number): ProcStat | null | undefined {
    if (listed !== null && !listed.has(String(pid))) {
      this.known.delete(pid);
      return undefined;
    }
    const seen = this.known.get(pid);
    if (seen && !stale(seen, t)) return seen.stat;
    const stat = readProcStat(pid);
    if (stat === null || (seen && seen.stat.startTicks !== stat.startTicks)) this.known.delete(pid);
    if (stat !== null) this.known.set(pid, { stat, checkedAt: t });
    return stat;
  }

  async liveRows(snapshot: { entries: readonly { row: RegistryRow }[] }): Promise<LiveRow[]> {
    const rows = snapshot.entries.map((e) => e.row);
    const listed = listedPids();
    if (listed === null) {
      // No /proc: kill(pid, 0) and one ps call, as for a one-shot reader.
      const facts = await processFacts(rows);
      this.lastExists = new Map(rows.map((r) => [r.pid, facts.running.has(r.pid)]));
      return rows.map((row) => withLiveness(row, rowLiveness(row, facts)));
    }
    this.lastListed = listed;
    const t = this.now();
    const running = new Map<number, ProcStat | null>();
    for (const pid of new Set(rows.map((r) => r.pid))) {
      const stat = this.statOf(pid, listed, t);
      if (stat && !hasExited(stat)) running.set(pid, stat);
    }
    for (const pid of [...this.known.keys()]) if (!listed.has(String(pid))) this.known.delete(pid);
    this.lastExists = new Map(rows.map((r) => [r.pid, running.has(r.pid)]));
    return this.judge(rows, running);
  }

  private async judge(rows: readonly RegistryRow[], running: ReadonlyMap<number, ProcStat | null>): Promise<LiveRow[]> {
    const textRows = rows.filter((r) => running.has(r.pid) && r.procStart !== undefined && !TICKS_RE.test(r.procStart.trim()));
    const lstart = textRows.length > 0 ? await lstartTimes(textRows.map((r) => r.pid), running) : new Map<number, string>();
    const facts: ProcessFacts = { running, lstart, domain: localPidDomain() };
    return rows.map((row) => ({ ...withLiveness(row, rowLiveness(row, facts)), startTicks: running.get(row.pid)?.startTicks }));
  }

  /**
   * The liveness of the rows that changed, with no listing of /proc: each
   * pid's stat read afresh. The other rows' liveness stands until the poll
   * sees a death (goneAmong) and the next wake judges that pid's rows again. `removed`: the
   * pids of rows gone from the registry, no longer watched.
   */
  async changedRows(rows: readonly RegistryRow[], removed: readonly number[] = []): Promise<LiveRow[]> {
    // No listing this wake: `running` and `stat` answer from the kept stats, read afresh past STATE_RECHECK_MS.
    this.lastListed = null;
    let exists: Map<number, boolean> | null = null;
    const note = (pid: number, value: boolean | undefined) => {
      if (this.lastExists.get(pid) === value && (value !== undefined || !this.lastExists.has(pid))) return;
      exists ??= new Map(this.lastExists);
      if (value === undefined) exists.delete(pid);
      else exists.set(pid, value);
    };
    for (const pid of removed) note(pid, undefined);
    let live: LiveRow[];
    if (rows.length > 0 && readProcStat(process.pid) === null) {
      // No /proc: kill(pid, 0) and one ps call, as for a one-shot reader.
      const facts = await processFacts(rows);
      for (const r of rows) note(r.pid, facts.running.has(r.pid));
      live = rows.map((row) => withLiveness(row, rowLiveness(row, facts)));
    } else {
      const t = this.now();
      const running = new Map<number, ProcStat | null>();
      for (const pid of new Set(rows.map((r) => r.pid))) {
        const stat = readProcStat(pid);
        if (stat === null) this.known.delete(pid);
        else this.known.set(pid, { stat, checkedAt: t });
        if (stat && !hasExited(stat)) running.set(pid, stat);
        note(pid, running.has(pid));
      }
      live = await this.judge(rows, running);
    }
    // A new map only when a pid came, went or changed: the supervisor watches the last one it was given.
    if (exists !== null) this.lastExists = exists;
    return live;
  }

  /**
   * Whether a process runs, as the last liveRows saw /proc (no new listing):
   * for the questions a render asks about single pids in the same wake.
   */
  running(pid: number): boolean {
    const stat = this.statOf(pid, this.lastListed, this.now());
    return !!stat && !hasExited(stat);
  }

  /** The /proc stat of a pid as the last liveRows saw /proc (cached for STATE_RECHECK_MS), null when it is gone. */
  stat(pid: number): ProcStat | null {
    return this.statOf(pid, this.lastListed, this.now()) ?? null;
  }

  /**
   * For the supervisor's poll: which of `pids` have gone since the last look.
   * One kill(pid, 0) each (about 0.4 µs: 500 pids cost 0.2 ms, whatever else
   * runs on the machine; a listing of /proc costs what every process there
   * costs), plus a fresh stat of at most the budget of pids not read for
   * STATE_RECHECK_MS (a zombie still answers kill), in turn. A pid found gone
   * is forgotten, so that the next look at it reads /proc afresh. System
   * calls only, never a process.
   */
  goneAmong(pids: readonly number[]): number[] {
    const gone: number[] = [];
    if (pids.length === 0) return gone;
    const t = this.now();
    // Past the budget, a state due again stands until a later poll reads it.
    let budget = this.recheckBudget;
    for (const pid of pids) {
      let exited = !signalable(pid);
      const seen = this.known.get(pid);
      // A pid not read yet is read now; one read before, when due and within the budget.
      if (!exited && HAVE_PROC && (!seen || (stale(seen, t) && budget > 0))) {
        if (seen) budget--;
        const stat = readProcStat(pid);
        // Another start time: the pid was reused, the process watched is gone.
        exited = stat === null || hasExited(stat) || (seen !== undefined && stat.startTicks !== seen.stat.startTicks);
        if (stat !== null && !exited) this.known.set(pid, { stat, checkedAt: t });
      } else if (!exited && seen) exited = hasExited(seen.stat);
      if (!exited) continue;
      this.known.delete(pid);
      gone.push(pid);
    }
    return gone;
  }
}
