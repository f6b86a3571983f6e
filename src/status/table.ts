// Rows of the fleet for people: `tasks` prints them, the dashboard draws them.
import { renderAgent, renderHopWithIntent, sid8 } from './hop-text';
import { ownerState } from './segments';
import { clip, printable } from '../text';
import { isArchived, type Task } from '../tasks/schema';
import { basename } from 'node:path';
import { taskRepo } from '../ownership/worktree';
import type { FleetView, SessionView, TaskView } from '../fleet/view';
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
  repo: string;
  branch: string;
}

/** A task's repository as a short name (its main checkout's directory name) and its full path; null when not known. */
export function repoOf(task: Task | null | undefined): { name: string; path: string } | null {
  const path = taskRepo(task);
  return path ? { name: basename(path) || path, path } : null;
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
    repo: cell(repoOf(t.task)?.name ?? '-'),
    branch: cell(t.task?.branch ?? '-'),
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

export const TASK_HEADER = ['TASK', 'OWNER', 'VERDICT', 'LIVE', 'SESSION', 'HOP', 'AGENT', 'AGE', 'REPO', 'BRANCH'];

/** The tasks `tasks` and the dashboard list: those not archived, or (archived) only the archived ones (docs/tasks.md#archived-tasks). */
export function listedTasks(view: FleetView, archived = false): FleetView['tasks'] {
  return view.tasks.filter((t) => isArchived(t.task) === archived);
}

/**
 * The tasks grouped by repository (the order of the groups: by name, tasks
 * with none last), each group in the order given: [repository path or null, tasks].
 */
export function groupByRepo<T extends { task: Task | null }>(tasks: readonly T[]): [string | null, T[]][] {
  const groups = new Map<string | null, T[]>();
  for (const t of tasks) {
    const key = repoOf(t.task)?.path ?? null;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : basename(a).localeCompare(basename(b)) || a.localeCompare(b)));
}

export function tasksTable(view: FleetView, now: number = Date.now(), opts: { group?: boolean } = {}): string[] {
  const tasks = listedTasks(view);
  const gates = tasks.filter((t) => acceptanceText(t.task) !== '').map((t) => `  ${cell(t.slug)}: ${acceptanceText(t.task)}`);
  const tail = gates.length > 0 ? ['', 'acceptance gates:', ...gates] : [];
  if (!opts.group) return [...formatColumns(TASK_HEADER, tasks.map((t) => Object.values(taskRow(t, now)))), ...tail];
  // One table, so the columns line up across groups; a heading line before each group.
  const groups = groupByRepo(tasks);
  const rows = groups.flatMap(([, list]) => list.map((t) => Object.values(taskRow(t, now))));
  const [header, ...lines] = formatColumns(TASK_HEADER, rows);
  const out = [header as string];
  let i = 0;
  for (const [path, list] of groups) {
    out.push(cell(path ? `${basename(path)} (${path})` : '(no repository)'));
    out.push(...lines.slice(i, i + list.length));
    i += list.length;
  }
  return [...out, ...tail];
}

export const ARCHIVED_HEADER = ['TASK', 'ARCHIVED', 'BY', 'BRANCH', 'REPO', 'LABEL'];

/** The archived tasks (tasks --archived): when, by done or gc, what became of the branch, where. */
export function archivedTable(view: FleetView, now: number = Date.now()): string[] {
  const rows = listedTasks(view, true).map((t) => {
    const done = (t.task?.done ?? {}) as { by?: unknown; branch?: unknown };
    const fate = typeof done.branch === 'string' ? done.branch : '-';
    return [t.slug, `${age(t.task?.archivedAt, now)} ago`, typeof done.by === 'string' ? done.by : '-', t.task?.branch ? `${t.task.branch} (${fate})` : fate, repoOf(t.task)?.name ?? '-', t.task?.label ?? ''];
  });
  return formatColumns(ARCHIVED_HEADER, rows);
}

/** A task's acceptance items (spawn --accept) on one line, `tests pass · docs updated`; '' for none. */
export function acceptanceText(task: Task | null | undefined): string {
  return (task?.acceptance ?? []).map((a) => cell(a.text).trim()).filter(Boolean).join(' · ');
}
