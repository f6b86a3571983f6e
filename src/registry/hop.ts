// Following live: which row each stamped session is attached to, and the
// events when that changes (a park, or the work coming back). Pure and
// reusable: `follow --watch` and the supervisor feed it the same inputs.
//
// State is filed under the base (the tab's) session id. When a session's chain
// end changes, its derived state is reset, never merged: the events arriving
// now carry another session id.
import { follow, parkedJob, shortId, shortSid, type FollowResult } from './follow';
import type { LiveRow } from './liveness';
import { printable } from '../text';

/** What the status shows of the agent: from the row the session is attached to, not the pinned one. */
export interface AgentState {
  sessionId: string;
  status: string | null;
  waitingFor: string | null;
  /** Claude Code's sentence of what it needs from the user (2.1.332 `needs`), or null. */
  needs?: string | null;
  alive: boolean;
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
  /** The toast, plain text (double '#' before handing it to tmux; src/tmux/apply.ts does). */
  text: string;
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
    agent: end
      ? { sessionId: end.row.sessionId, status: end.row.status ?? null, waitingFor: end.row.waitingFor ?? null, needs: end.row.needs ?? null, alive: end.alive }
      : null,
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
    for (const [session, base] of stampEntries(stamps)) {
      if (!base) continue;
      const hop = hopOf(session, base, rows);
      sessions.set(session, hop);
      const prev = this.memory.get(session);
      const known = hop.follow.chain.length > 0;
      if (!prev || prev.base !== base) {
        if (prev && prev.base !== base) this.states.delete(prev.base);
        if (known) this.memory.set(session, { base, end: hop.attached });
        else this.memory.delete(session);
        continue;
      }
      if (!known || prev.end === hop.attached) continue;
      const kind: HopKind = hop.attached === base ? 'back' : 'park';
      const event: HopEvent = { session, base, from: prev.end, to: hop.attached, kind, jobId: kind === 'park' ? hop.jobId : null, text: '' };
      event.text = hopToast(event);
      events.push(event);
      this.memory.set(session, { base, end: hop.attached });
      this.states.set(base, this.makeState(base));
    }
    for (const session of [...this.memory.keys()]) if (!sessions.has(session)) this.memory.delete(session);
    const bases = new Set([...sessions.values()].map((h) => h.base));
    for (const base of [...this.states.keys()]) if (!bases.has(base)) this.states.delete(base);
    this.last = sessions;
    return { sessions, events };
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

/** The toast for a hop event. */
export function hopToast(e: Pick<HopEvent, 'kind' | 'base' | 'to' | 'jobId'>): string {
  if (e.kind === 'back') return `fleet: work came back to ${shortSid(e.base)}`;
  return `fleet: ${shortSid(e.base)} parked its work on background job ${e.jobId !== null ? printable(e.jobId) : shortSid(e.to)}, following`;
}

/** The @fleet-hop segment text: `10e3 → e9e4` while following, '' otherwise. Plain text: escape '#' when writing. */
export function renderHop(hop: Pick<SessionHop, 'base' | 'attached'> | null | undefined): string {
  if (!hop || hop.attached === hop.base) return '';
  return `${shortSid(hop.base)} → ${shortSid(hop.attached)}`;
}

/**
 * The @fleet-agent segment text from the attached row: Claude Code's `needs`
 * sentence when the row has one (cut to `max` characters with `…`), else, as
 * before `needs` existed,
 * `busy`, `idle`, `shell`, `waiting: approve Bash` (or `waiting`). '' when
 * there is no row or its process is gone. Plain text: escape '#' when writing.
 */
export function renderAgent(agent: AgentState | null | undefined, max: number = Infinity): string {
  if (!agent || !agent.alive) return '';
  const needs = agent.needs ? oneLine(agent.needs) : '';
  if (needs !== '') return shorten(needs, max);
  if (!agent.status) return '';
  const status = oneLine(agent.status);
  if (status === 'waiting' && agent.waitingFor) return `waiting: ${oneLine(agent.waitingFor)}`;
  return status;
}

/** Whether the agent waits for the user: status `waiting`, or a `needs` sentence. */
export function agentWaits(agent: Pick<AgentState, 'status' | 'needs' | 'alive'> | null | undefined): boolean {
  return !!agent && agent.alive && (agent.status === 'waiting' || (!!agent.needs && oneLine(agent.needs) !== ''));
}

/** At most `max` characters, the last one `…` when cut. */
export function shorten(s: string, max: number): string {
  const chars = [...s];
  if (chars.length <= max) return s;
  return `${chars.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}

function oneLine(s: string): string {
  return printable(s).trim();
}

/** The id as printed by `follow` and named by the status line: a UUID's first eight characters, any other id whole (up to 24). */
export const sid8 = (sid: string) => shortId(sid, 8);

/** One human line: `10e378ef → e9e4ae8e (parked on job e9e4ae8e), busy`. */
export function describeFollow(f: FollowResult): string {
  if (f.chain.length === 0) return `${sid8(f.base)}: no registry row holds this session id`;
  const ids = f.chain.map((l) => sid8(l.sessionId)).join(' → ');
  const notes: string[] = [];
  const end = f.chain[f.chain.length - 1]!;
  const job = parkedJob(f);
  if (f.hops > 0 && job) notes.push(`parked on job ${printable(job)}`);
  if (f.stop === 'missing') notes.push(`parked on job ${printable(String(end.parkedJobId))}, which no row runs`);
  if (f.stop === 'repeat') notes.push(`job ${printable(String(end.parkedJobId))} leads back into the chain`);
  if (f.stop === 'limit') notes.push(`stopped after ${f.hops} hops`);
  const agent = end.alive ? renderAgent({ sessionId: end.sessionId, status: end.status, waitingFor: end.waitingFor, needs: end.needs, alive: true }) : 'gone';
  return `${ids}${notes.length ? ` (${notes.join('; ')})` : ''}${agent ? `, ${agent}` : ''}`;
}
