// The dashboard's content: one row per task, per agent session not bound to a
// task, and per live agent no such row shows (parked tabs, background jobs,
// agents outside any task); rows that need the user first. Drawn to fit a
// width. Pure; the terminal loop is in tui.ts.
import { homedir } from 'node:os';
import { reasonFor } from '../ownership/judge';
import { agentWaits } from '../registry/hop';
import { jobIntent, renderAgent, renderHopWithIntent, sid8 } from '../status/hop-text';
import { timeMs } from '../registry/time';
import type { FleetAgent, FleetAgentRole } from '../status/agents';
import { acceptanceText, age, agentCell, cell, groupByRepo, repoOf, verdictCell } from '../status/table';
import { isArchived } from '../tasks/schema';
import type { FleetView } from '../fleet/view';
import { restoreTarget } from '../ownership/restore';

export type RowKind = 'task' | 'session' | FleetAgentRole;

export interface DashboardRow {
  kind: RowKind;
  /** The tmux session Enter switches to, or null when there is none. */
  session: string | null;
  /** TASK column: the slug, or what the agent is (`job 45a15a22`, `tab a7ffa1f6`, `agent a7ffa1f6`). */
  task: string;
  owner: string;
  verdict: string;
  hop: string;
  agent: string;
  age: string;
  dir: string;
  /** The task of the row (for `r`), else null. */
  slug: string | null;
  /** The background job the row shows (a job, a parked tab's job, a task following one), else null. */
  jobId: string | null;
  /** The tmux session that parked the job, when one still holds the tab. */
  parkedBy: string | null;
  /** The task's Driver is gone and restore would bring it back (restoreTarget): `r` restores it, `R` every such task. */
  ownerGone: boolean;
  /** Waiting, a `needs` sentence, or tempo blocked: sorted first. */
  attention: boolean;
  /** Since when the row's agent is in its state (epoch ms; -Infinity unknown): the longest wait first. */
  since: number;
  /** What finished there while no client showed it (docs/notify.md#unseen): when (epoch s), or null when seen. */
  unseenAt?: number | null;
  /** The bottom line when selected. */
  reason: string;
  /** A task's acceptance gate (spawn --accept) on one line, shown above the reason when selected; '' or absent for none. */
  gate?: string;
  /** REPO column: the task's repository by name (its main checkout's directory); '' for none. */
  repo?: string;
  /** BRANCH column: the task's branch. */
  branch?: string;
  /** An archived task (shown only when asked, `a`): `r` reopens it. */
  archived?: boolean;
}

/** What the dashboard is asked to show beyond the default. */
export interface RowOptions {
  /** Archived tasks too (`a`). */
  archived?: boolean;
  /** Grouped by repository (`R`): rows of one repository together, its name on the first. */
  group?: boolean;
}


/** The AGENT cell of a task whose Driver is gone and can be restored. */
export const RESTORABLE = '↻ restorable';

function dirLabel(cwd: string | null | undefined, home: string): string {
  if (!cwd) return '-';
  const c = cell(cwd);
  return home && home !== '/' && (c === home || c.startsWith(`${home}/`)) ? `~${c.slice(home.length)}` : c;
}

const ageOfMs = (ms: number, now: number) => (Number.isFinite(ms) ? age(new Date(ms).toISOString(), now) : '-');

/** When the agent's state began: its attached row's status time, else its hook's (Codex CLI, Gemini CLI). */
function endSince(hop: FleetView['tasks'][number]['hop'], state: FleetView['tasks'][number]['state']): number {
  const end = hop?.follow.rows[hop.follow.rows.length - 1];
  return end ? timeMs(end.row.statusUpdatedAt ?? end.row.updatedAt) : (state?.since ?? -Infinity);
}

function agentRow(g: FleetAgent, now: number, home: string): DashboardRow {
  const id8 = g.jobId ?? sid8(g.sessionId);
  // A job is named by what it was asked to do, as Claude Code keeps it (its state file's intent).
  const intent = jobIntent(g.agent);
  const about = intent ? ` · ${intent}` : '';
  const label = g.kind === 'job' ? `job ${g.jobId}${about}` : g.kind === 'parked' ? `tab ${sid8(g.sessionId)}` : `agent ${id8}`;
  const what =
    g.kind === 'job' ? `background job ${g.jobId}${about}` : g.kind === 'parked' ? `tab ${g.sessionId} parked on job ${g.jobId}${about}` : `agent ${g.sessionId}, outside any task`;
  const where = g.session ? ` in tmux session ${g.session}` : g.parkedBy ? `, parked by tmux session ${g.parkedBy}` : '';
  const attention = agentWaits(g.agent);
  const state = renderAgent(g.agent);
  return {
    kind: g.kind,
    session: g.session,
    task: label,
    owner: '-',
    verdict: '-',
    hop: g.kind === 'parked' && g.jobId ? `${g.sessionId.slice(0, 4)} → ${g.jobId.slice(0, 4)}` : '',
    agent: cell(state),
    age: ageOfMs(g.startedAt, now),
    dir: dirLabel(g.cwd, home),
    slug: null,
    jobId: g.jobId,
    parkedBy: g.kind === 'parked' ? g.session : g.parkedBy,
    ownerGone: false,
    attention,
    since: g.since,
    reason: `${what}${where}${g.agent.needs ? `: ${cell(g.agent.needs)}` : ''}`,
  };
}

/**
 * Every row, those that need the user first (longest wait first), then tasks,
 * sessions and agents in order; archived tasks only when asked; grouped by
 * repository when asked. `viewer`: the session id of whoever looks
 * (resolveViewer); each verdict's reason is worded for it.
 */
export function dashboardRows(
  view: FleetView,
  agents: readonly FleetAgent[] = [],
  now: number = Date.now(),
  home: string = homedir(),
  viewer = '',
  opts: RowOptions = {},
): DashboardRow[] {
  const taskOwner = new Map(view.tasks.map((t) => [t.slug, t.owner]));
  const unseenOf = new Map(view.sessions.map((s) => [s.session, s.unseen]));
  const tasks = view.tasks.filter((t) => opts.archived || !isArchived(t.task));
  const rows: DashboardRow[] = tasks.map((t) => {
    const archived = isArchived(t.task);
    const restorable = t.task !== null && !archived && 'sid' in restoreTarget(t.task, t.decision);
    return {
      kind: 'task',
      session: t.session,
      task: t.slug,
      owner: t.error ? 'invalid' : t.owner ? sid8(t.owner) : 'pending',
      verdict: archived ? 'archived' : verdictCell(t.decision),
      hop: renderHopWithIntent(t.hop),
      // A restorable row says so where its agent's state would be: it has none.
      agent: restorable ? RESTORABLE : cell(agentCell(t.state, t.agent)),
      age: age(t.task?.createdAt, now),
      dir: dirLabel(t.task?.worktree ?? t.task?.cwd, home),
      slug: t.slug,
      ...agentColumns(t),
      ownerGone: restorable,
      reason: archived
        ? `archived ${t.task?.archivedAt ?? ''} · r reopens it (reopen --resume)`
        : withUnseen(
            `${reasonFor(t.slug, t.decision, viewer)}${restorable ? ' · r restores it, R every task whose Driver is gone' : ''}`,
            t.session ? unseenOf.get(t.session) : '',
            now,
          ),
      unseenAt: unseenTime(t.session ? unseenOf.get(t.session) : ''),
      gate: acceptanceText(t.task),
      repo: repoOf(t.task)?.name ?? '',
      branch: t.task?.branch ?? '',
      archived,
    };
  });
  const shown = new Set(rows.map((r) => r.session).filter((s): s is string => s !== null));
  for (const s of view.sessions) {
    if (shown.has(s.session)) continue;
    // The task's owner, as the status line names it: never the session's own stamp.
    const owner = s.decision?.owner || (s.slug ? taskOwner.get(s.slug) : '') || '';
    rows.push({
      kind: 'session',
      session: s.session,
      task: s.slug ?? '-',
      owner: owner ? sid8(owner) : s.slug ? 'pending' : '-',
      verdict: verdictCell(s.decision),
      hop: renderHopWithIntent(s.hop),
      agent: cell(agentCell(s.state, s.agent)),
      age: s.created ? age(new Date(s.created * 1000).toISOString(), now) : '-',
      dir: '-',
      slug: s.slug,
      ...agentColumns(s),
      ownerGone: false,
      reason: withUnseen(s.decision && s.slug ? reasonFor(s.slug, s.decision, viewer) : `session ${s.session}, stamped ${s.stamp}`, s.unseen, now),
      unseenAt: unseenTime(s.unseen),
    });
  }
  for (const g of agents) rows.push(agentRow(g, now, home));
  // Those that wait first (longest first), then what finished unseen (oldest first), then the rest in order.
  const first = rows.filter((r) => r.attention).sort((a, b) => a.since - b.since);
  const unseen = rows.filter((r) => !r.attention && r.unseenAt != null).sort((a, b) => (a.unseenAt as number) - (b.unseenAt as number));
  const ordered = [...first, ...unseen, ...rows.filter((r) => !r.attention && r.unseenAt == null)];
  return opts.group ? grouped(ordered, view) : ordered;
}

/** What a task's row and a session's say alike of the agent there: its job, whether it waits, and since when. */
function agentColumns(x: { hop: FleetView['sessions'][number]['hop']; state: FleetView['sessions'][number]['state']; session: string | null }): Pick<DashboardRow, 'jobId' | 'parkedBy' | 'attention' | 'since'> {
  return { jobId: x.hop?.jobId ?? null, parkedBy: x.hop?.jobId ? x.session : null, attention: agentWaits(x.state), since: endSince(x.hop, x.state) };
}

/** When an unseen mark was made (`<epoch s> <sentence>`), or null for none. */
export function unseenTime(mark: string | undefined | null): number | null {
  const m = /^(\d{1,12}) /.exec(mark ?? '');
  return m ? Number(m[1]) : null;
}

/** The reason line with what finished there unseen: `… · finished unseen 3m ago: fix-login finished its turn`. */
function withUnseen(reason: string, mark: string | undefined, now: number): string {
  const at = unseenTime(mark);
  if (at === null) return reason;
  return `${reason} · unseen, ${age(new Date(at * 1000).toISOString(), now)} ago: ${cell((mark ?? '').slice(String(at).length + 1))}`;
}

/**
 * Rows of one repository together (repositories by name, rows of none last),
 * each group in the order it had; its name shown on its first row only.
 */
function grouped(rows: readonly DashboardRow[], view: FleetView): DashboardRow[] {
  const taskOf = new Map(view.tasks.map((t) => [t.slug, t.task]));
  const groups = groupByRepo(rows.map((r) => ({ row: r, task: r.kind === 'task' && r.slug ? (taskOf.get(r.slug) ?? null) : null })));
  return groups.flatMap(([, list]) => list.map(({ row }, i) => (i === 0 || !row.repo ? row : { ...row, repo: ' ' })));
}

/** The rows whose cells hold `text` (case-insensitive); all rows for ''. */
export function filterRows(rows: readonly DashboardRow[], text: string): DashboardRow[] {
  const want = text.trim().toLowerCase();
  if (want === '') return [...rows];
  return rows.filter((r) => COLUMNS.some((c) => String(r[c.key] ?? '').toLowerCase().includes(want)));
}

/** Columns in order; `shrink` gives the order in which too-wide columns give way (lower first), down to `min`. */
interface Column {
  key: keyof DashboardRow;
  title: string;
  min: number;
  shrink: number;
  keepEnd?: boolean;
}

const COLUMNS: Column[] = [
  // `job 45a15a22` whole: a job is named by its id first.
  { key: 'task', title: 'TASK', min: 12, shrink: 3 },
  { key: 'session', title: 'SESSION', min: 8, shrink: 1 },
  { key: 'owner', title: 'OWNER', min: 8, shrink: 9 },
  { key: 'verdict', title: 'VERDICT', min: 7, shrink: 4 },
  { key: 'hop', title: 'HOP', min: 3, shrink: 5 },
  // A need can be a long sentence (an API error's); the bottom line gives it whole.
  { key: 'agent', title: 'AGENT', min: 8, shrink: 2 },
  { key: 'age', title: 'AGE', min: 3, shrink: 9 },
  { key: 'repo', title: 'REPO', min: 4, shrink: 6 },
  { key: 'branch', title: 'BRANCH', min: 6, shrink: 0 },
  { key: 'dir', title: 'DIR', min: 3, shrink: 0, keepEnd: true },
];

const INDENT = 2;
const GAP = 1;
const len = (s: string) => [...s].length;

function fit(s: string, width: number, keepEnd = false): string {
  const chars = [...s];
  if (chars.length <= width) return s + ' '.repeat(width - chars.length);
  // A directory keeps its end: the last names tell it apart.
  if (keepEnd) return `…${chars.slice(chars.length - Math.max(0, width - 1)).join('')}`;
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Column widths from the content; when the sum is too wide, the cheapest columns give way first, down to their minimum. */
export function columnWidths(cells: readonly (readonly string[])[], width: number, columns: readonly Column[] = COLUMNS): number[] {
  const widths = columns.map((c, i) => Math.max(len(c.title), ...cells.map((r) => len(r[i] ?? ''))));
  let over = widths.reduce((n, w) => n + w, 0) + GAP * (columns.length - 1) + INDENT - width;
  const order = columns.map((_, i) => i).sort((a, b) => columns[a]!.shrink - columns[b]!.shrink);
  for (const i of order) {
    if (over <= 0) break;
    const give = Math.min(over, Math.max(0, widths[i]! - columns[i]!.min));
    widths[i] = widths[i]! - give;
    over -= give;
  }
  return widths;
}

/** A directory cut to fewer columns than this says nothing: the column is left out and its room goes to the others. */
const MIN_USEFUL_DIR = 8;

/** Lines of the table for a terminal `width` columns wide (readable at 80). */
/** Columns shown only when some row has a value in them. */
const OPTIONAL: readonly (keyof DashboardRow)[] = ['repo', 'branch'];

export function dashboardLines(rows: readonly DashboardRow[], width: number): { header: string; lines: string[] } {
  // Session names and labels come from tmux and files: no control character is drawn.
  let columns: readonly Column[] = COLUMNS.filter((c) => !OPTIONAL.includes(c.key) || rows.some((r) => String(r[c.key] ?? '').trim() !== ''));
  let cells = rows.map((r) => columns.map((c) => cell(String(r[c.key] ?? '')) || '-'));
  let widths = columnWidths(cells, width, columns);
  const dir = columns.findIndex((c) => c.key === 'dir');
  if (widths[dir]! < MIN_USEFUL_DIR && cells.some((r) => len(r[dir] ?? '') > widths[dir]!)) {
    columns = columns.filter((c) => c.key !== 'dir');
    cells = cells.map((r) => r.filter((_, i) => i !== dir));
    widths = columnWidths(cells, width, columns);
  }
  const line = (values: readonly string[]) =>
    `${' '.repeat(INDENT)}${values.map((v, i) => fit(v, widths[i]!, columns[i]!.keepEnd)).join(' '.repeat(GAP))}`.trimEnd();
  return { header: line(columns.map((c) => c.title)), lines: cells.map(line) };
}
