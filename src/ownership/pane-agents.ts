// Which agent runs in which pane, proven by the kernel
// (docs/ownership.md#the-stamp-without-the-hook): a live registry row belongs
// to a pane when the row's process descends from the pane's first process
// (#{pane_pid}), walking parent pids in /proc/<pid>/stat. The row's own
// `tmux` field is never used to decide: a renamed session or a stale field
// would name the wrong pane.
import { readProcStat } from '../proc';
import { parseAgentProcess } from '../agents/agent-process';
import type { AgentKind } from '../agents/kind';
import type { ProofRow } from '../agents/discover';
import type { LiveRow } from '../registry/liveness';
import { rowsBySession } from '../registry/row-index';
import { timeMs } from '../registry/time';
import type { PaneSnap } from '../tmux/snapshot';
import { addTo } from '../set-index';

/** What the proof needs of a pane: its session, id and first process. */
export type PaneRef = Pick<PaneSnap, 'session' | 'id' | 'pid'>;

/** The most parents walked from an agent up to a pane (a shell, a wrapper, npx ...). */
const MAX_DEPTH = 32;

/**
 * The ancestors of each process, kept while it runs: a process keeps its
 * parents until one of them exits, and then the pane is gone too (or the
 * process was reparented to init, which is no pane). Keyed by pid and start
 * time, so a reused pid is walked afresh. Only new processes are walked.
 */
export class AncestryCache {
  private readonly chains = new Map<string, number[]>();

  /** The parent pids of `pid` (nearest first), walked once per process. */
  ancestors(pid: number, startTicks: number): number[] {
    const key = `${pid}:${startTicks}`;
    let chain = this.chains.get(key);
    if (chain === undefined) {
      chain = [];
      let cur = readProcStat(pid)?.ppid ?? 0;
      while (cur > 1 && chain.length < MAX_DEPTH) {
        chain.push(cur);
        cur = readProcStat(cur)?.ppid ?? 0;
      }
      this.chains.set(key, chain);
    }
    return chain;
  }

  /** Forgets processes not in `keep` (pid:startTicks keys). */
  prune(keep: ReadonlySet<string>): void {
    for (const key of this.chains.keys()) if (!keep.has(key)) this.chains.delete(key);
  }

  get size(): number {
    return this.chains.size;
  }
}


/** A live agent proven to run in a pane. */
export interface PaneAgent {
  row: LiveRow['row'];
  /** The agent, as its process shows it. */
  kind: AgentKind;
  firstStampOnly: boolean;
  session: string;
  pane: string;
  /** Parents between the agent and the pane's process (0: the agent is the pane's process). */
  depth: number;
}

/** Rows that run a background job or a daemon never belong to a pane, even when started from one. */
function isPaneAgentKind(kind: string | undefined): boolean {
  return kind === undefined || kind === 'interactive';
}

/**
 * Every live interactive row whose process descends from a pane's process,
 * grouped by session, nearest to the pane first (then newest). Where /proc
 * cannot tell (no stat), nothing is matched.
 */
export function matchPaneAgents(panes: readonly PaneRef[], rows: readonly ProofRow[], cache: AncestryCache): Map<string, PaneAgent[]> {
  const paneOfPid = panesByPid(panes);
  const out = new Map<string, PaneAgent[]>();
  const keep = new Set<string>();
  for (const r of rows) {
    const agent = matchRow(r, paneOfPid, cache, keep);
    if (!agent) continue;
    const list = out.get(agent.session);
    if (list) list.push(agent);
    else out.set(agent.session, [agent]);
  }
  cache.prune(keep);
  for (const list of out.values()) sortAgents(list);
  return out;
}

/** The panes by their first process, once per panes array (a snapshot's: every wake for changed rows asks again). */
const panesByPidCache = new WeakMap<readonly PaneRef[], ReadonlyMap<number, PaneRef>>();

function panesByPid(panes: readonly PaneRef[]): ReadonlyMap<number, PaneRef> {
  const cached = panesByPidCache.get(panes);
  if (cached) return cached;
  const paneOfPid = new Map<number, PaneRef>();
  for (const p of panes) {
    const pid = Number(p.pid);
    if (Number.isInteger(pid) && pid > 1) paneOfPid.set(pid, p);
  }
  panesByPidCache.set(panes, paneOfPid);
  return paneOfPid;
}

/** The pane a live interactive row's process runs under, or null; its process key goes into `keep`. */
function matchRow(r: ProofRow, paneOfPid: ReadonlyMap<number, PaneRef>, cache: AncestryCache, keep?: Set<string>): PaneAgent | null {
  if (r.liveness !== 'live' || !isPaneAgentKind(r.row.kind)) return null;
  const ticks = r.startTicks ?? readProcStat(r.row.pid)?.startTicks;
  if (ticks === undefined) return null;
  keep?.add(`${r.row.pid}:${ticks}`);
  let depth = paneOfPid.has(r.row.pid) ? 0 : -1;
  if (depth === -1) {
    const up = cache.ancestors(r.row.pid, ticks).findIndex((pid) => paneOfPid.has(pid));
    if (up !== -1) depth = up + 1;
  }
  if (depth === -1) return null;
  const pane = paneOfPid.get(depth === 0 ? r.row.pid : (cache.ancestors(r.row.pid, ticks)[depth - 1] as number)) as PaneRef;
  return { row: r.row, kind: r.agent ?? 'claude', firstStampOnly: r.firstStampOnly ?? false, session: pane.session, pane: pane.id, depth };
}

/** Each session's place in a session list, by name and by stamp, built once per list (a snapshot's stays for many wakes). */
const sessionPlacesCache = new WeakMap<readonly { name: string; stamp: string }[], { byName: Map<string, number>; byStamp: Map<string, number[]> }>();
function sessionPlaces(sessions: readonly { name: string; stamp: string }[]): { byName: Map<string, number>; byStamp: Map<string, number[]> } {
  const cached = sessionPlacesCache.get(sessions);
  if (cached) return cached;
  const byName = new Map<string, number>();
  const byStamp = new Map<string, number[]>();
  sessions.forEach((s, i) => {
    byName.set(s.name, i);
    if (s.stamp !== '') byStamp.set(s.stamp, [...(byStamp.get(s.stamp) ?? []), i]);
  });
  const places = { byName, byStamp };
  sessionPlacesCache.set(sessions, places);
  return places;
}

/** The same agents under a session's panes, in the same order (the same row objects: a row rewritten is a new one). */
function sameAgents(now: readonly PaneAgent[], before: readonly PaneAgent[] | undefined): boolean {
  if (before === undefined || before.length !== now.length) return false;
  return now.every((a, i) => {
    const b = before[i] as PaneAgent;
    return a.row === b.row && a.pane === b.pane && a.depth === b.depth && a.kind === b.kind && a.firstStampOnly === b.firstStampOnly;
  });
}

/** Nearest to the pane first, then newest. */
function sortAgents(list: PaneAgent[]): void {
  list.sort((a, b) => a.depth - b.depth || timeMs(b.row.startedAt) - timeMs(a.row.startedAt) || b.row.pid - a.row.pid);
}

/** What the proof asks of its caller: a task's recorded Driver process (when its owner is that stamp), whether a process runs, the time. */
export interface ProofDeps {
  driverPidOf: (slug: string, stamp: string) => number | null;
  running: (pid: number) => boolean;
  now?: number;
}

/** What the supervisor does for one session: stamp it (through the stamp's own code path) or nothing. */
export interface StampAction {
  session: string;
  pane: string;
  sid: string;
  /** The agent process that holds the id. */
  pid: number;
  kind: AgentKind;
  /** 'startup' for a first stamp or another process; 'clear' when the same process now holds a new session id. */
  source: 'startup' | 'clear';
}

export interface SessionFacts {
  session: string;
  /** @claude_session_id ('' when unstamped). */
  stamp: string;
  /** Bound to a task (@fleet-task) or spawned (@spawn_nonce): only those are stamped by the supervisor. */
  bound: boolean;
  /** When the supervisor first saw this stamp (epoch ms); a row must be newer to replace it, or the stamp this old. */
  stampSeenAt: number;
  /** The session's earlier stamps, as this supervisor saw them: never gone back to (a row not rewritten yet after a /clear). */
  earlier?: ReadonlySet<string>;
  /** Now (epoch ms). */
  now?: number;
}

/**
 * A stamp the hook just set may meet a row not rewritten yet (the old id): a
 * row is taken over a stamp when written after the stamp was seen, or, since
 * Claude Code 2.1.197 keeps `updatedAt` on /clear, once the stamp is this old.
 */
export const STAMP_SETTLE_MS = 3000;

/**
 * The stamp the kernel proves for a session (pure). The hook is faster and
 * stays; this fills in where it is missing and follows /clear without it:
 * - unstamped and bound: the nearest live agent under its panes;
 * - stamped, but no live agent under its panes holds the stamp, while the
 *   nearest one holds another id, never one of the session's earlier stamps,
 *   in a row written after the stamp was seen or once the stamp has settled
 *   (so a hook's stamp is not undone by a row not yet rewritten): that id,
 *   as `clear` when it is the same process that held the stamp.
 * Nothing clears a stamp.
 */
export function stampActionFor(facts: SessionFacts, agents: readonly PaneAgent[], stampPid: number | null): StampAction | null {
  const nearest = agents[0];
  if (!nearest || !facts.bound) return null;
  const act = (source: StampAction['source']): StampAction => ({
    session: facts.session,
    pane: nearest.pane,
    sid: nearest.row.sessionId,
    pid: nearest.row.pid,
    kind: nearest.kind,
    source,
  });
  if (facts.stamp === '') return act('startup');
  if (agents.some((a) => a.row.sessionId === facts.stamp)) return null;
  if (nearest.firstStampOnly) return null;
  if (nearest.row.sessionId === facts.stamp) return null;
  if (facts.earlier?.has(nearest.row.sessionId)) return null;
  const settled = facts.now !== undefined && facts.now - facts.stampSeenAt >= STAMP_SETTLE_MS;
  if (timeMs(nearest.row.updatedAt) <= facts.stampSeenAt && !settled) return null;
  return act(stampPid === nearest.row.pid ? 'clear' : 'startup');
}

/**
 * Whether a session's stamped agent is gone (pure): no live agent under the
 * session's panes holds the stamp, and either the registry rows of the stamp
 * are all gone or the stamp's known process (seen under the pane before, or
 * recorded as the task's Driver) has exited. A stamp no row has ever held and
 * no process is known for (an agent that writes no registry) says nothing.
 */
export function stampedAgentGone(
  stamp: string,
  stampRows: readonly LiveRow[],
  agents: readonly PaneAgent[],
  stampProcess: 'running' | 'exited' | null,
): boolean {
  if (stamp === '') return false;
  if (agents.some((a) => a.row.sessionId === stamp)) return false;
  // A row that cannot be checked here (unknown) is no proof of death.
  if (stampRows.some((r) => r.liveness !== 'gone')) return false;
  return stampRows.length > 0 || stampProcess === 'exited';
}

/** One wake's proof: the agents under each session's panes, the stamps to set, and the sessions whose stamped agent is gone. */
export interface PaneProof {
  agents: ReadonlyMap<string, readonly PaneAgent[]>;
  actions: StampAction[];
  gone: ReadonlySet<string>;
  /** When a stamp waiting to settle may be replaced (epoch ms): the supervisor wakes then, or null. */
  recheckAt: number | null;
}

interface SessionMarks {
  name: string;
  stamp: string;
  nonce: string;
  task: string;
  /** The agent process the stamp recorded (@fleet-stamp-agent). */
  agentProc?: string;
}

/** The sessions, panes and rows a proof looks at (every row now). */
export interface ProofWorld {
  sessions: readonly SessionMarks[];
  panes: readonly PaneRef[];
  rows: readonly ProofRow[];
}

/**
 * What changed since the last proof, from the wake's plan (src/fleet/plan.ts):
 * `all`: prove every session; `rows`: some registry rows changed, nothing else
 * (`before` the pids of the rows as they were, `after` the rows as they are,
 * `touched` the session ids the change touched); `sessions`: a new tmux
 * snapshot, whose diff names the sessions to prove again (`redo`) and those
 * gone (`removed`), rows perhaps too (`touched`).
 */
export type ProofChange =
  | { kind: 'all' }
  | { kind: 'rows'; before: readonly number[]; after: readonly ProofRow[]; touched: ReadonlySet<string> }
  | { kind: 'sessions'; redo: ReadonlySet<string>; removed: ReadonlySet<string>; touched: ReadonlySet<string> };

/**
 * The supervisor's memory for the proof: the ancestry of each agent process,
 * when it first saw each session's stamp, and which process held that stamp
 * under the session's panes. Only new processes are walked.
 */
export class PaneProofs {
  private readonly ancestry = new AncestryCache();
  private readonly seen = new Map<string, { sid: string; at: number; pid: number | null; earlier: Set<string> }>();
  /** The last proof's agents (and the sessions of each agent pid) and gone sessions, for a wake where only some rows changed. */
  private last: { agents: Map<string, PaneAgent[]>; sessionsOfPid: Map<number, Set<string>>; gone: Set<string> } | null = null;

  /**
   * The proof of a wake: every session after `all` (or when there is no last
   * proof to start from), else only those the change reaches; the others keep
   * their verdicts. `deps.driverPidOf(slug, stamp)`: the task's recorded
   * Driver process when the task's owner is that stamp (a process known
   * across supervisor restarts); `deps.running(pid)`: whether a process still
   * runs. `proven`: the sessions proven again.
   */
  prove(world: ProofWorld, change: ProofChange, deps: ProofDeps): PaneProof & { proven: ReadonlySet<string> } {
    const ctx = { driverPidOf: deps.driverPidOf, running: deps.running, now: deps.now ?? Date.now() };
    if (change.kind === 'all' || this.last === null) return { ...this.proveAll(world, ctx), proven: new Set(world.sessions.map((s) => s.name)) };
    return change.kind === 'rows' ? this.proveRows(world, change, ctx) : this.proveSessions(world, change, ctx);
  }

  private proveAll({ sessions, panes, rows }: ProofWorld, { driverPidOf, running, now }: Required<ProofDeps>): PaneProof {
    const agents = matchPaneAgents(panes, rows, this.ancestry);
    const rowsOf = rowsBySession(rows);
    const out: PaneProof = { agents, actions: [], gone: new Set<string>(), recheckAt: null };
    const names = new Set<string>();
    for (const s of sessions) {
      names.add(s.name);
      this.proveSession(s, agents.get(s.name) ?? [], rowsOf.get(s.stamp) ?? [], driverPidOf, running, now, out);
    }
    for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
    const sessionsOfPid = new Map<number, Set<string>>();
    for (const [session, list] of agents) for (const a of list) addTo(sessionsOfPid, a.row.pid, session);
    this.last = { agents, sessionsOfPid, gone: out.gone as Set<string> };
    return out;
  }

  /**
   * The proof after some registry rows changed, nothing else (the same
   * sessions and panes as the last update): the changed rows are placed
   * under their panes, and only the sessions they leave or join, or whose
   * stamps they hold (`touched`), are proven again. `before`: the pids of
   * the rows as they were; `after`: the rows as they are now. `rows`: every
   * row now.
   */
  private proveRows(
    { sessions, panes, rows }: ProofWorld,
    change: Extract<ProofChange, { kind: 'rows' }>,
    ctx: Required<ProofDeps>,
  ): PaneProof & { proven: ReadonlySet<string> } {
    const last = this.last as NonNullable<PaneProofs['last']>;
    const affected = new Set<string>();
    const gonePids = new Set([...change.before, ...change.after.map((r) => r.row.pid)]);
    // The sessions holding those pids, by look-up: a wake costs what it changed, not a pass over the fleet.
    for (const pid of gonePids) {
      for (const session of last.sessionsOfPid.get(pid) ?? []) {
        if (affected.has(session)) continue;
        const kept = (last.agents.get(session) ?? []).filter((a) => !gonePids.has(a.row.pid));
        if (kept.length > 0) last.agents.set(session, kept);
        else last.agents.delete(session);
        affected.add(session);
      }
      last.sessionsOfPid.delete(pid);
    }
    const paneOfPid = panesByPid(panes);
    for (const r of change.after) {
      const agent = matchRow(r, paneOfPid, this.ancestry);
      if (!agent) continue;
      const list = last.agents.get(agent.session);
      if (list) list.push(agent);
      else last.agents.set(agent.session, [agent]);
      addTo(last.sessionsOfPid, agent.row.pid, agent.session);
      affected.add(agent.session);
    }
    for (const session of affected) {
      const list = last.agents.get(session);
      if (list) sortAgents(list);
    }
    // A new set: the caller compares it with the last one.
    last.gone = new Set(last.gone);
    const out: PaneProof = { agents: last.agents, actions: [], gone: last.gone, recheckAt: null };
    // Those the agents moved in or out of, and those whose stamps the change touched.
    const proven = this.proveAgain(sessions, affected, change.touched, rows, ctx, out);
    for (const name of proven) affected.add(name);
    return { ...out, proven: affected };
  }

  /**
   * The proof after tmux changed (a new snapshot), rows perhaps too: every
   * live row is placed under the panes again (cached ancestry: look-ups), but
   * only the sessions `redo` names (new, or whose marks or panes changed),
   * those whose agents moved, and those whose stamps `touched` holds are
   * proven again; the others keep their verdicts. `removed`: sessions gone
   * from tmux, forgotten.
   */
  private proveSessions(
    { sessions, panes, rows }: ProofWorld,
    change: Extract<ProofChange, { kind: 'sessions' }>,
    ctx: Required<ProofDeps>,
  ): PaneProof & { proven: ReadonlySet<string> } {
    const last = this.last as NonNullable<PaneProofs['last']>;
    const agents = matchPaneAgents(panes, rows, this.ancestry);
    const affected = new Set(change.redo);
    for (const [session, list] of agents) if (!sameAgents(list, last.agents.get(session))) affected.add(session);
    for (const session of last.agents.keys()) if (!agents.has(session)) affected.add(session);
    for (const name of change.removed) this.seen.delete(name);
    const gone = new Set(last.gone);
    for (const name of change.removed) gone.delete(name);
    const out: PaneProof = { agents, actions: [], gone, recheckAt: null };
    const proven = this.proveAgain(sessions, affected, change.touched, rows, ctx, out);
    const sessionsOfPid = new Map<number, Set<string>>();
    for (const [session, list] of agents) for (const a of list) addTo(sessionsOfPid, a.row.pid, session);
    this.last = { agents, sessionsOfPid, gone };
    return { ...out, proven };
  }

  /**
   * Proves again, into `out` (its agents and gone set, changed in place), the
   * sessions `names` names and those carrying a stamp in `stamps`, in the
   * snapshot's order, found by look-ups; returns their names.
   */
  private proveAgain(
    sessions: readonly SessionMarks[],
    names: Iterable<string>,
    stamps: Iterable<string>,
    rows: readonly ProofRow[],
    ctx: Required<ProofDeps>,
    out: PaneProof,
  ): Set<string> {
    const at = sessionPlaces(sessions);
    const places = new Set<number>();
    for (const name of names) {
      const i = at.byName.get(name);
      if (i !== undefined) places.add(i);
    }
    for (const stamp of stamps) for (const i of at.byStamp.get(stamp) ?? []) places.add(i);
    const rowsOf = rowsBySession(rows);
    const proven = new Set<string>();
    for (const i of [...places].sort((a, b) => a - b)) {
      const s = sessions[i] as SessionMarks;
      proven.add(s.name);
      (out.gone as Set<string>).delete(s.name);
      this.proveSession(s, out.agents.get(s.name) ?? [], rowsOf.get(s.stamp) ?? [], ctx.driverPidOf, ctx.running, ctx.now, out);
    }
    return proven;
  }

  /** One session's stamp action, settle time and gone verdict, into `out`. */
  private proveSession(
    s: SessionMarks,
    under: readonly PaneAgent[],
    stampRows: readonly LiveRow[],
    driverPidOf: (slug: string, stamp: string) => number | null,
    running: (pid: number) => boolean,
    now: number,
    out: PaneProof,
  ): void {
    let memo = this.seen.get(s.name);
    if (!memo || memo.sid !== s.stamp) {
      const earlier = memo?.earlier ?? new Set<string>();
      if (memo && memo.sid !== '') earlier.add(memo.sid);
      memo = { sid: s.stamp, at: now, pid: null, earlier };
      this.seen.set(s.name, memo);
    }
    const holder = under.find((a) => a.row.sessionId === s.stamp);
    if (holder) memo.pid = holder.row.pid;
    const knownPid = memo.pid ?? (s.stamp !== '' ? (parseAgentProcess(s.agentProc ?? '')?.pid ?? null) : null) ?? (s.task ? driverPidOf(s.task, s.stamp) : null);
    const action = stampActionFor(
      { session: s.name, stamp: s.stamp, bound: s.nonce !== '' || s.task !== '', stampSeenAt: memo.at, earlier: memo.earlier, now },
      under,
      knownPid,
    );
    if (action) out.actions.push(action);
    else if (s.stamp !== '' && under[0] && under[0].row.sessionId !== s.stamp && !memo.earlier.has(under[0].row.sessionId) && now - memo.at < STAMP_SETTLE_MS) {
      // Another id under the pane, waiting for the stamp to settle: look again then, whatever else happens.
      const at = memo.at + STAMP_SETTLE_MS;
      out.recheckAt = out.recheckAt === null ? at : Math.min(out.recheckAt, at);
    }
    const stampProcess = knownPid === null ? null : running(knownPid) ? 'running' : 'exited';
    if (stampedAgentGone(s.stamp, stampRows, under, stampProcess)) (out.gone as Set<string>).add(s.name);
  }
}
