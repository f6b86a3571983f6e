// Following live: which row each stamped session is attached to, and the
// events when that changes (a park, or the work coming back). Pure and
// reusable: `follow --watch` and the supervisor feed it the same inputs.
//
// State is filed under the base (the tab's) session id. When a session's chain
// end changes, its derived state is reset, never merged: the events arriving
// now carry another session id.
import { chainLink, follow, parkedJob, type FollowResult } from './follow';
import type { JobState } from './jobs';
import type { LiveRow } from './liveness';
import { printable } from '../text';

/** What the status shows of the agent: from the row the session is attached to, not the pinned one. */
export interface AgentState {
  sessionId: string;
  /** The row's status; for a job whose row has none yet, its state file's tempo as a status (active: busy). */
  status: string | null;
  waitingFor: string | null;
  /**
   * Claude Code's sentence of what it needs from the user: its job's state
   * file while `tempo` is `blocked` (docs/hop.md#the-job-state-file), else the
   * row's own `needs`; null when it needs nothing.
   */
  needs?: string | null;
  /** `active`, `idle` or `blocked`: the job's state file's, else the row's. */
  tempo?: string | null;
  alive: boolean;
  /** The job's state file, when the row is a job that has one. */
  job?: JobState | null;
  /** When this state began (epoch ms), where no row tells it (a hook's signal); else absent. */
  since?: number;
}

/** A status for a row that has none yet, from its job's tempo. */
const TEMPO_STATUS: Record<string, string> = { active: 'busy', idle: 'idle' };

/** The agent state of a row: its status, and what its job's state file says it needs (joined by job id). */
export function agentStateOf(r: LiveRow): AgentState {
  const link = chainLink(r);
  return {
    sessionId: link.sessionId,
    status: link.status ?? (link.tempo !== null ? (TEMPO_STATUS[link.tempo] ?? null) : null),
    waitingFor: link.waitingFor,
    needs: link.needs,
    tempo: link.tempo,
    alive: link.alive,
    job: r.job ?? null,
  };
}

/**
 * The state of a session's attached row. While the work is parked (the chain
 * moved to a job) it is never blank: a job that has said nothing yet (no
 * status, no state file) is `starting`.
 */
function attachedState(end: LiveRow, following: boolean): AgentState {
  const agent = agentStateOf(end);
  if (following && agent.alive && saysNothing(agent)) return { ...agent, status: 'starting' };
  return agent;
}

/** No `needs` sentence, no status and no blocked tempo: nothing for the status line to show. */
function saysNothing(agent: AgentState): boolean {
  return printable(agent.needs ?? '').trim() === '' && printable(agent.status ?? '').trim() === '' && agent.tempo !== 'blocked';
}

export interface SessionHop {
  /** tmux session name. */
  session: string;
  /** The stamp: the tab's session id. */
  base: string;
  /** Where the work is now (base when nothing is parked, or when no row holds the base). */
  attached: string;
  /** attached !== base. */
  following: boolean;
  /** The job the work is parked on while following, else null. */
  jobId: string | null;
  follow: FollowResult;
  /** The attached row's state; null when no row holds the base. */
  agent: AgentState | null;
}

export type HopKind = 'park' | 'back';

export interface HopEvent {
  session: string;
  base: string;
  /** Previous chain end (session id). */
  from: string;
  /** New chain end (session id). */
  to: string;
  kind: HopKind;
  /** The job now followed ('park'), else null. */
  jobId: string | null;
}

export interface HopUpdate {
  /** Every stamped session, by session name. */
  sessions: Map<string, SessionHop>;
  /** Chain-end changes since the previous update, in session order. */
  events: HopEvent[];
}

/** Session name -> stamp (@claude_session_id). Empty stamps are ignored. */
export type Stamps = ReadonlyMap<string, string> | Readonly<Record<string, string>> | Iterable<readonly [string, string]>;

function stampEntries(stamps: Stamps): [string, string][] {
  if (stamps instanceof Map) return [...stamps.entries()];
  if (Symbol.iterator in (stamps as object)) return [...(stamps as Iterable<readonly [string, string]>)].map(([k, v]) => [k, v]);
  return Object.entries(stamps as Record<string, string>);
}

export function hopOf(session: string, base: string, rows: readonly LiveRow[]): SessionHop {
  const f = follow(rows, base);
  const end = f.rows[f.rows.length - 1];
  return {
    session,
    base,
    attached: f.attached,
    following: f.attached !== base,
    jobId: f.attached !== base ? parkedJob(f) : null,
    follow: f,
    agent: end ? attachedState(end, f.attached !== base) : null,
  };
}

export class HopTracker<S = Record<string, unknown>> {
  /** Per session: the base it was stamped with and its last known chain end. */
  private readonly memory = new Map<string, { base: string; end: string }>();
  private readonly states = new Map<string, S>();
  private last = new Map<string, SessionHop>();

  constructor(private readonly makeState: (base: string) => S = () => ({}) as S) {}

  /**
   * Re-follows every stamped session against a registry snapshot. The first
   * sight of a session (or of a new stamp on it) records its chain end without
   * an event; a later change of chain end is an event and resets the state of
   * that base. A session whose base has no row keeps its last chain end, so a
   * row caught between writes toasts nothing.
   */
  update(stamps: Stamps, rows: readonly LiveRow[]): HopUpdate {
    const sessions = new Map<string, SessionHop>();
    const events: HopEvent[] = [];
    for (const [session, base] of stampEntries(stamps)) this.followOne(session, base, rows, sessions, events);
    for (const session of [...this.memory.keys()]) if (!sessions.has(session)) this.memory.delete(session);
    const bases = new Set([...sessions.values()].map((h) => h.base));
    for (const base of [...this.states.keys()]) if (!bases.has(base)) this.states.delete(base);
    this.last = sessions;
    return { sessions, events };
  }

  /**
   * Re-follows only these sessions; every other session keeps its last hop
   * (the supervisor's wake for a change that touches only their chains). The
   * sessions map returned holds them all: the last one, changed in place (a
   * copy would cost a pass over the fleet at every wake).
   */
  updateSome(stamps: Stamps, rows: readonly LiveRow[]): HopUpdate {
    const events: HopEvent[] = [];
    for (const [session, base] of stampEntries(stamps)) this.followOne(session, base, rows, this.last, events);
    return { sessions: this.last, events };
  }

  /**
   * Forgets sessions that are gone from tmux (closed, or renamed: the new
   * name is a first sight), as `update` does for every session it is not
   * given; a base no remaining session holds loses its state.
   */
  forget(sessions: Iterable<string>): void {
    const bases = new Set<string>();
    for (const session of sessions) {
      const base = this.last.get(session)?.base ?? this.memory.get(session)?.base;
      if (base !== undefined) bases.add(base);
      this.last.delete(session);
      this.memory.delete(session);
    }
    if (bases.size === 0) return;
    for (const hop of this.last.values()) bases.delete(hop.base);
    for (const base of bases) this.states.delete(base);
  }

  private followOne(session: string, base: string, rows: readonly LiveRow[], sessions: Map<string, SessionHop>, events: HopEvent[]): void {
    if (!base) return;
    const hop = hopOf(session, base, rows);
    sessions.set(session, hop);
    const prev = this.memory.get(session);
    const known = hop.follow.chain.length > 0;
    if (!prev || prev.base !== base) {
      if (prev && prev.base !== base) this.states.delete(prev.base);
      if (known) this.memory.set(session, { base, end: hop.attached });
      else this.memory.delete(session);
      return;
    }
    if (!known || prev.end === hop.attached) return;
    const kind: HopKind = hop.attached === base ? 'back' : 'park';
    events.push({ session, base, from: prev.end, to: hop.attached, kind, jobId: kind === 'park' ? hop.jobId : null });
    this.memory.set(session, { base, end: hop.attached });
    this.states.set(base, this.makeState(base));
  }

  /** The derived state filed under a base id; fresh after a hop of the session holding it. */
  state(base: string): S {
    let s = this.states.get(base);
    if (s === undefined) {
      s = this.makeState(base);
      this.states.set(base, s);
    }
    return s;
  }

  /** The last update's view of a session. */
  current(session: string): SessionHop | undefined {
    return this.last.get(session);
  }
}

/**
 * Whether the agent waits for the user (docs/hop.md#what-a-wait-is): status
 * `waiting`, a `needs` sentence (a job's state file blocked with one), or a
 * tempo `blocked`.
 */
export function agentWaits(agent: Pick<AgentState, 'status' | 'needs' | 'alive' | 'tempo'> | null | undefined): boolean {
  if (!agent || !agent.alive) return false;
  return agent.status === 'waiting' || (!!agent.needs && printable(agent.needs).trim() !== '') || agent.tempo === 'blocked';
}
