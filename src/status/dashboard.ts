// The dashboard's content: one row per task and per agent session not bound
// to a task, drawn to fit a width. Pure; the terminal loop is in dashboard-tui.ts.
import { renderAgent, renderHop, sid8 } from '../registry/hop';
import { ownerState } from './segments';
import { age, cell } from './table';
import type { FleetView } from './view';

export interface DashboardRow {
  /** The tmux session Enter switches to, or null when the task has none. */
  session: string | null;
  task: string;
  owner: string;
  verdict: string;
  hop: string;
  agent: string;
  age: string;
}

const WORD = { owner: 'owner', other: 'other', pending: 'pending', unknown: 'cannot tell' } as const;

export function dashboardRows(view: FleetView, now: number = Date.now()): DashboardRow[] {
  const rows: DashboardRow[] = view.tasks.map((t) => ({
    session: t.session,
    task: t.slug,
    owner: t.error ? 'invalid' : t.owner ? sid8(t.owner) : 'pending',
    verdict: `${t.decision.verdict} ${WORD[ownerState(t.decision)]}`,
    hop: renderHop(t.hop),
    agent: cell(renderAgent(t.hop?.agent)),
    age: age(t.task?.createdAt, now),
  }));
  const shown = new Set(rows.map((r) => r.session).filter((s): s is string => s !== null));
  for (const s of view.sessions) {
    if (shown.has(s.session)) continue;
    rows.push({
      session: s.session,
      task: s.slug ?? '-',
      owner: s.stamp ? sid8(s.stamp) : '-',
      verdict: s.decision ? `${s.decision.verdict} ${WORD[ownerState(s.decision)]}` : '-',
      hop: renderHop(s.hop),
      agent: cell(renderAgent(s.hop?.agent)),
      age: s.created ? age(new Date(s.created * 1000).toISOString(), now) : '-',
    });
  }
  return rows;
}

/** Columns in order; `shrink` gives the order in which too-wide columns give way (lower first), down to `min`. */
const COLUMNS: { key: keyof DashboardRow; title: string; min: number; shrink: number }[] = [
  { key: 'task', title: 'TASK', min: 8, shrink: 2 },
  { key: 'session', title: 'SESSION', min: 8, shrink: 1 },
  { key: 'owner', title: 'OWNER', min: 8, shrink: 9 },
  { key: 'verdict', title: 'VERDICT', min: 7, shrink: 4 },
  { key: 'hop', title: 'HOP', min: 3, shrink: 5 },
  { key: 'agent', title: 'AGENT', min: 8, shrink: 3 },
  { key: 'age', title: 'AGE', min: 3, shrink: 9 },
];

const INDENT = 2;
const GAP = 1;
const len = (s: string) => [...s].length;

function fit(s: string, width: number): string {
  const chars = [...s];
  if (chars.length <= width) return s + ' '.repeat(width - chars.length);
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Column widths from the content; when the sum is too wide, the cheapest columns give way first, down to their minimum. */
export function columnWidths(cells: readonly (readonly string[])[], width: number): number[] {
  const widths = COLUMNS.map((c, i) => Math.max(len(c.title), ...cells.map((r) => len(r[i] ?? ''))));
  let over = widths.reduce((n, w) => n + w, 0) + GAP * (COLUMNS.length - 1) + INDENT - width;
  const order = COLUMNS.map((_, i) => i).sort((a, b) => COLUMNS[a]!.shrink - COLUMNS[b]!.shrink);
  for (const i of order) {
    if (over <= 0) break;
    const give = Math.min(over, Math.max(0, widths[i]! - COLUMNS[i]!.min));
    widths[i] = widths[i]! - give;
    over -= give;
  }
  return widths;
}

/** Lines of the table for a terminal `width` columns wide (readable at 80). */
export function dashboardLines(rows: readonly DashboardRow[], width: number): { header: string; lines: string[] } {
  // Session names and labels come from tmux and files: no control character is drawn.
  const cells = rows.map((r) => COLUMNS.map((c) => cell(String(r[c.key] ?? '')) || '-'));
  const widths = columnWidths(cells, width);
  const line = (values: readonly string[]) =>
    `${' '.repeat(INDENT)}${values.map((v, i) => fit(v, widths[i]!)).join(' '.repeat(GAP))}`.trimEnd();
  return { header: line(COLUMNS.map((c) => c.title)), lines: cells.map(line) };
}
