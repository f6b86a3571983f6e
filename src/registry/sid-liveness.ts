// A session id's liveness (docs/ownership.md#liveness): its own rows, the end
// of its Follow chain (a Driver follows its park), the Driver process a task
// or a stamp recorded, and whether a tmux session carries it. Above Follow and
// the rows' liveness (src/registry/liveness.ts), which know nothing of it.
import { follow } from './follow';
import { liveRows, mostAlive, recordedLiveness, type Liveness, type LiveRow, type RecordedProcess } from './liveness';
import { rowsBySession } from './row-index';
import type { RegistryRow } from './schema';

/**
 * The liveness of a session id from its rows, or null when no row holds it.
 * A Driver follows its park: it is live when one of its own rows is, or when
 * the end of its Follow chain is (a tab killed while its background job works
 * on the task must not open the task to a takeover). docs/ownership.md#liveness.
 */
export function sidLivenessFromRows(sid: string, rows: readonly LiveRow[]): Liveness | null {
  const own = mostAlive((rowsBySession(rows).get(sid) ?? []).map((r) => r.liveness));
  if (own === null || own === 'live') return own;
  const f = follow(rows, sid);
  const end = f.hops > 0 ? f.rows[f.rows.length - 1] : undefined;
  return mostAlive([own, ...(end ? [end.liveness] : [])]);
}

/** What the tmux sessions say of a session id: whether one carries it as its stamp, and the liveness of the agent processes recorded with it. */
export interface StampFacts {
  carried: boolean;
  /** The most alive of the processes the stamps recorded (@fleet-stamp-agent); null when none recorded one. */
  processes: Liveness | null;
}

/** Rows that say something of a process: a start time names the very process; a row without one is only a pid. */
function rowsProve(rows: readonly LiveRow[]): boolean {
  return rows.some((r) => r.liveness !== 'gone' || r.row.procStart !== undefined || r.row.procStartFt !== undefined);
}

/**
 * A session id's liveness from what was read (pure; docs/ownership.md#liveness):
 * 1. live when one of its registry rows is (or the end of its Follow chain);
 * 2. else, when its Driver's process is recorded (by the task, or by a stamp
 *    with @fleet-stamp-agent), that process's liveness: a row of another
 *    process never makes a live recorded process gone;
 * 3. else its rows, when they name a process (a start time);
 * 4. else live while a tmux session carries it as its stamp (an agent no
 *    process was recorded for), gone when none does; unknown when tmux could
 *    not be read.
 * `recorded`: the task's record; `stamps` is asked only when still needed
 * (the caller may skip a tmux read), null when tmux cannot be read.
 */
export function decideSidLiveness(
  sid: string,
  registry: { readable: boolean; rows: readonly LiveRow[] },
  recorded: Liveness | undefined,
  stamps: () => StampFacts | null,
): Liveness {
  const fromRows = registry.readable ? sidLivenessFromRows(sid, registry.rows) : 'unknown';
  if (fromRows === 'live') return 'live';
  let rec: Liveness | null = recorded ?? null;
  let facts: StampFacts | null | undefined;
  if (rec !== 'live') {
    facts = stamps();
    rec = mostAlive([...(rec ? [rec] : []), ...(facts?.processes ? [facts.processes] : [])]);
  }
  if (rec !== null) return fromRows === 'unknown' ? (rec === 'live' ? 'live' : 'unknown') : rec;
  if (fromRows !== null && (fromRows === 'unknown' || rowsProve(rowsBySession(registry.rows).get(sid) ?? []))) return fromRows;
  if (facts === null) return 'unknown';
  return facts?.carried ? 'live' : 'gone';
}

/**
 * Liveness of a session id (one-shot readers: owner, takeover): the registry,
 * the task's record of its Driver's process, and, only when still needed, the
 * stamps of the tmux sessions (`stamped`, so the caller can skip the tmux read).
 */
export async function sessionLiveness(
  sid: string,
  snapshot: { readable: boolean; entries: readonly { row: RegistryRow }[] },
  stamped: () => Promise<StampFacts | null>,
  recorded?: RecordedProcess,
  /** The snapshot's rows judged already (a pass over many tasks judges them once). */
  judged?: readonly LiveRow[],
): Promise<Liveness> {
  const rows = !snapshot.readable ? [] : (judged ?? (await liveRows(snapshot)));
  const fromRows = snapshot.readable ? sidLivenessFromRows(sid, rows) : 'unknown';
  if (fromRows === 'live') return 'live';
  const rec = recorded && recorded.sid === sid ? (await recordedLiveness([recorded], rows)).get(sid) : undefined;
  const facts = rec === 'live' ? undefined : await stamped();
  return decideSidLiveness(sid, { readable: snapshot.readable, rows }, rec, () => facts ?? null);
}
