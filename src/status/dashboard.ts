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

const COLUMNS: { key: keyof DashboardRow; title: string; min: number; weight: number }[] = [
  { key: 'task', title: 'TASK', min: 8, weight: 3 },
  { key: 'session', title: 'SESSION', min: 8, weight: 3 },
  { key: 'owner', title: 'OWNER', min: 8, weight: 0 },
  { key: 'verdict', title: 'VERDICT', min: 9, weight: 1 },
  { key: 'hop', title: 'HOP', min: 11, weight: 0 },
  { key: 'agent', title: 'AGENT', min: 8, weight: 3 },
  { key: 'age', title: 'AGE', min: 3, weight: 0 },
];

function fit(s: string, width: number): string {
  const chars = [...s];
  if (chars.length <= width) return s + ' '.repeat(width - chars.length);
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Lines of the table for a terminal `width` columns wide (readable at 80). */
export function dashboardLines(rows: readonly DashboardRow[], width: number): { header: string; lines: string[] } {
  const gap = 1;
  const minTotal = COLUMNS.reduce((n, c) => n + c.min, 0) + gap * (COLUMNS.length - 1) + 2;
  const spare = Math.max(0, width - minTotal);
  const weights = COLUMNS.reduce((n, c) => n + c.weight, 0);
  const widths = COLUMNS.map((c) => c.min + Math.floor((spare * c.weight) / weights));
  const line = (values: string[]) => `  ${values.map((v, i) => fit(v, widths[i]!)).join(' '.repeat(gap))}`.trimEnd();
  return {
    header: line(COLUMNS.map((c) => c.title)),
    lines: rows.map((r) => line(COLUMNS.map((c) => String(r[c.key] ?? '-') || '-'))),
  };
}
