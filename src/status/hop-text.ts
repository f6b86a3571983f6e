// What the status line, `follow`, `tasks` and the dashboard print of a hop
// and of the agent a session is attached to: plain text, `#` not yet doubled
// (src/tmux/apply.ts and the segment writers do that). The facts come from
// src/registry/hop.ts (docs/hop.md#following-live).
import { parkedJob, shortId, shortSid, type FollowResult } from '../registry/follow';
import { agentStateOf, type AgentState, type HopEvent, type SessionHop } from '../registry/hop';
import { printable } from '../text';

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

/** What a job was asked to do (its state file's `intent`), on one line; '' when unknown. */
export function jobIntent(agent: Pick<AgentState, 'job'> | null | undefined): string {
  return agent?.job?.intent ? oneLine(agent.job.intent).replace(/\s+/g, ' ') : '';
}

/**
 * The hop as `tasks` and the dashboard print it: `10e3 → e9e4`, and while
 * following a job whose intent is known, `10e3 → e9e4 · write a haiku`. '' when not following.
 */
export function renderHopWithIntent(hop: Pick<SessionHop, 'base' | 'attached' | 'agent'> | null | undefined): string {
  const text = renderHop(hop);
  const intent = text ? jobIntent(hop?.agent) : '';
  return intent ? `${text} · ${intent}` : text;
}

/**
 * The @fleet-agent segment text from the attached row: Claude Code's `needs`
 * sentence when there is one (cut to `max` characters with `…`), else
 * `busy`, `idle`, `shell`, `waiting: permission prompt` (or `waiting`), or
 * `blocked` for a tempo blocked with no sentence. '' when there is no row or
 * its process is gone. Plain text: escape '#' when writing.
 */
export function renderAgent(agent: AgentState | null | undefined, max: number = Infinity): string {
  if (!agent || !agent.alive) return '';
  const needs = agent.needs ? oneLine(agent.needs) : '';
  if (needs !== '') return shorten(needs, max);
  if (!agent.status) return agent.tempo === 'blocked' ? 'blocked' : '';
  const status = oneLine(agent.status);
  if (status === 'waiting' && agent.waitingFor) return `waiting: ${oneLine(agent.waitingFor)}`;
  return status;
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
  const endRow = f.rows[f.rows.length - 1];
  const agent = !end.alive ? 'gone' : endRow ? renderAgent(agentStateOf(endRow)) : '';
  return `${ids}${notes.length ? ` (${notes.join('; ')})` : ''}${agent ? `, ${agent}` : ''}`;
}
