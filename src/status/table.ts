// Rows of the fleet for people: `tasks` prints them, the dashboard draws them.
import { renderAgent, renderHopWithIntent, sid8 } from './hop-text';
import { ownerState } from './segments';
import { clip, printable } from '../text';
import type { Task } from '../tasks/schema';
import type { FleetView, SessionView, TaskView } from './view';
import type { AgentKind } from '../agents/kind';
import type { Decision } from '../ownership/judge';

/** 42s, 5m, 3h, 2d. */
export function age(iso: string | null | undefined, now: number = Date.now()): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(t)) return '-';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** No control characters in a cell: a hostile label must not move the cursor. */
export function cell(s: string): string {
  return printable(s);
}

/** The widest a cell of `tasks` gets: a 100 KB waitingFor must not make a 100 KB-wide column. */
export const CELL_MAX = 60;

const VERDICT_WORD = { owner: 'owner', other: 'other', pending: 'pending', unknown: 'cannot tell' } as const;

/** A VERDICT cell, the same in `tasks` and the dashboard: `0 owner`, `9 other`, `5 pending`, `5 cannot tell`; '-' for none. */
export function verdictCell(d: Decision | null | undefined): string {
  return d ? `${d.verdict} ${VERDICT_WORD[ownerState(d)]}` : '-';
}

/**
 * What a row shows of its agent: its state (SessionView.state), for Codex CLI
 * and Gemini CLI after its name (`codex busy`); an agent of those that has
 * told nothing yet by its name alone, as its process shows it: nothing guessed.
 */
export function agentCell(state: TaskView['state'], agent: AgentKind | null): string {
  const text = renderAgent(state);
  const named = agent === 'codex' || agent === 'gemini';
  if (text === '') return named ? agent : '';
  return named ? `${agent} ${text}` : text;
}

export interface TaskRow {
  slug: string;
  owner: string;
  verdict: string;
  live: string;
  session: string;
  hop: string;
  agent: string;
  age: string;
}

export function taskRow(t: TaskView, now: number = Date.now()): TaskRow {
  const d = t.decision;
  return {
    slug: t.slug,
    owner: t.error ? '(invalid)' : t.owner ? sid8(t.owner) : 'pending',
    verdict: verdictCell(d),
    live: d.liveness ?? '-',
    session: cell(t.session ?? '-'),
    hop: renderHopWithIntent(t.hop) || '-',
    agent: cell(agentCell(t.state, t.agent)) || '-',
    age: age(t.task?.createdAt, now),
  };
}

export interface SessionRow {
  session: string;
  stamp: string;
  task: string;
  verdict: string;
  hop: string;
  agent: string;
  age: string;
}

export function sessionRow(s: SessionView, now: number = Date.now()): SessionRow {
  return {
    session: cell(s.session),
    stamp: s.stamp ? sid8(s.stamp) : '-',
    task: cell(s.slug ?? '-'),
    verdict: verdictCell(s.decision),
    hop: renderHopWithIntent(s.hop) || '-',
    agent: cell(agentCell(s.state, s.agent)) || '-',
    age: s.created ? age(new Date(s.created * 1000).toISOString(), now) : '-',
  };
}

/** Left-aligned columns, two spaces apart; the last column is not padded. */
export function formatColumns(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows.map((r) => r.map((c) => clip(cell(c), CELL_MAX)))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ').trimEnd());
}

export const TASK_HEADER = ['TASK', 'OWNER', 'VERDICT', 'LIVE', 'SESSION', 'HOP', 'AGENT', 'AGE'];

export function tasksTable(view: FleetView, now: number = Date.now()): string[] {
  const rows = view.tasks.map((t) => Object.values(taskRow(t, now)));
  const gates = view.tasks.filter((t) => acceptanceText(t.task) !== '').map((t) => `  ${cell(t.slug)}: ${acceptanceText(t.task)}`);
  return [...formatColumns(TASK_HEADER, rows), ...(gates.length > 0 ? ['', 'acceptance gates:', ...gates] : [])];
}

/** A task's acceptance items (spawn --accept) on one line, `tests pass · docs updated`; '' for none. */
export function acceptanceText(task: Task | null | undefined): string {
  return (task?.acceptance ?? []).map((a) => cell(a.text).trim()).filter(Boolean).join(' · ');
}
