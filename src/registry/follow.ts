// Follow: where a session's work is. Pure: rows and their liveness in, chain out.
//
// A tab that parks its work keeps its row (status idle, parkedJobId set); the
// work runs under a `bg` row whose jobId equals that parkedJobId, under another
// session id. The job id is the only field the two rows share.
import { jobNeeds } from './job-state';
import type { Liveness, LiveRow } from './liveness';
import { rowsByJob, rowsBySession } from './row-index';
import { printable } from '../text';
import type { RegistryRow } from './schema';
import { timeMs } from './time';

/** The most hops Follow takes before it stops with "limit". */
export const MAX_HOPS = 4;

export type StopReason = 'no-park' | 'missing' | 'repeat' | 'limit';

/** One row of a chain, as `follow --json` prints it (absent fields are null). */
export interface ChainLink {
  sessionId: string;
  pid: number;
  kind: string | null;
  status: string | null;
  waitingFor: string | null;
  /**
   * Claude Code's sentence of what it needs from the user: the job's state
   * file while blocked (docs/hop.md#the-job-state-file), else the row's, or null.
   */
  needs: string | null;
  /** `active`, `idle` or `blocked`: the job's state file's, else the row's, or null. */
  tempo: string | null;
  /** What the job was asked to do, from its state file, or null. */
  intent: string | null;
  jobId: string | null;
  parkedJobId: string | null;
  /** Not gone (docs/ownership.md#liveness). */
  alive: boolean;
  liveness: Liveness;
}

export interface FollowResult {
  /** The session id followed from (the tab's). */
  base: string;
  /** The session id of the chain's last row (where the work is); base when no row holds it. */
  attached: string;
  /** Moves made: chain.length - 1, or 0 for an empty chain. */
  hops: number;
  stop: StopReason;
  chain: ChainLink[];
  /** The rows of the chain, in order (chain[i] describes rows[i]). */
  rows: LiveRow[];
}

/** Live before dead, then newest updatedAt (then newest startedAt, then highest pid, so ties are stable). */
export function better(a: LiveRow, b: LiveRow): boolean {
  if (a.alive !== b.alive) return a.alive;
  const ua = timeMs(a.row.updatedAt);
  const ub = timeMs(b.row.updatedAt);
  if (ua !== ub) return ua > ub;
  const sa = timeMs(a.row.startedAt);
  const sb = timeMs(b.row.startedAt);
  if (sa !== sb) return sa > sb;
  return a.row.pid > b.row.pid;
}

export function pickBest(rows: readonly LiveRow[]): LiveRow | null {
  let best: LiveRow | null = null;
  for (const r of rows) if (best === null || better(r, best)) best = r;
  return best;
}

export function chainLink(r: LiveRow): ChainLink {
  const row: RegistryRow = r.row;
  return {
    sessionId: row.sessionId,
    pid: row.pid,
    kind: row.kind ?? null,
    status: row.status ?? null,
    waitingFor: row.waitingFor ?? null,
    needs: jobNeeds(r.job) ?? row.needs ?? null,
    tempo: r.job ? r.job.tempo : (row.tempo ?? null),
    intent: r.job?.intent ?? null,
    jobId: row.jobId ?? null,
    parkedJobId: row.parkedJobId ?? null,
    alive: r.alive,
    liveness: r.liveness,
  };
}

/**
 * Follow(rows, sid): start at the row whose sessionId is sid (live before dead,
 * then newest updatedAt); while the row has parkedJobId, move to the row whose
 * jobId equals it (same preference; a spare bg row is reachable: a tab that
 * parks onto it has said where its work went). Stops on a row that parks
 * nothing, a missing row, a repeat, and after MAX_HOPS hops.
 */
export function follow(rows: readonly LiveRow[], sid: string): FollowResult {
  const start = pickBest(rowsBySession(rows).get(sid) ?? []);
  if (start === null) return { base: sid, attached: sid, hops: 0, stop: 'missing', chain: [], rows: [] };
  const path: LiveRow[] = [start];
  let stop: StopReason;
  for (;;) {
    const cur = path[path.length - 1] as LiveRow;
    const parked = cur.row.parkedJobId;
    if (!parked) {
      stop = 'no-park';
      break;
    }
    if (path.length - 1 >= MAX_HOPS) {
      stop = 'limit';
      break;
    }
    const next = pickBest(rowsByJob(rows).get(parked) ?? []);
    if (next === null) {
      stop = 'missing';
      break;
    }
    if (path.some((p) => p === next || p.row.sessionId === next.row.sessionId)) {
      stop = 'repeat';
      break;
    }
    path.push(next);
  }
  const end = path[path.length - 1] as LiveRow;
  return {
    base: sid,
    attached: end.row.sessionId,
    hops: path.length - 1,
    stop,
    chain: path.map(chainLink),
    rows: path,
  };
}

/** The job id the work was parked on when the chain moved off the base, else null. */
export function parkedJob(result: FollowResult): string | null {
  if (result.hops === 0) return null;
  const end = result.chain[result.chain.length - 1];
  return end?.jobId ?? result.chain[result.chain.length - 2]?.parkedJobId ?? null;
}

/**
 * The row a directory points at, when no stamp says which session it is: rows
 * whose cwd equals `cwd`, skipping spare bg rows (a warmed process holding no
 * work), live before dead, then newest updatedAt. Follow from the guess to
 * reach parked work.
 */
export function guessByCwd(rows: readonly LiveRow[], cwd: string): LiveRow | null {
  const norm = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  const want = norm(cwd);
  return pickBest(rows.filter((r) => r.row.cwd !== undefined && norm(r.row.cwd) === want && !isSpare(r.row)));
}

export function isSpare(row: RegistryRow): boolean {
  // Claude Code sets spare on warmed bg processes; any row flagged spare holds no work.
  return row.spare === true;
}

/**
 * Claude Code's session ids are UUIDs (a background job's too); other agents'
 * ids, stamped by hand, may be anything. UUID-shaped: 8-4-4-4-12 letters or digits.
 */
export function looksLikeUuid(sid: string): boolean {
  return /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i.test(sid);
}

/** The longest id shown whole; an id that is no UUID (`myagent-session-7`) is shown whole up to this. */
export const SHOWN_ID_MAX = 24;

/** An id that is no UUID, as shown: whole, cut to SHOWN_ID_MAX with `…`. */
function wholeId(sid: string): string {
  return printable(sid.length > SHOWN_ID_MAX ? `${sid.slice(0, SHOWN_ID_MAX - 1)}…` : sid);
}

/**
 * A session id cut to `n` characters when it is a UUID (its start names it);
 * any other id whole up to SHOWN_ID_MAX: its first characters may be all that
 * several ids share (`myagent-1`, `myagent-2`).
 */
export function shortId(sid: string, n: number): string {
  // Registry text: no control character reaches a terminal or the status line.
  return looksLikeUuid(sid) ? printable(sid.slice(0, n)) : wholeId(sid);
}

/** The short form of a session id in the status line and toasts: a UUID's first four characters. */
export function shortSid(sid: string): string {
  return shortId(sid, 4);
}
