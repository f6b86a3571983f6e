// Every live agent of the registry that no task row shows (docs/status.md#dashboard):
// parked tabs with their job, background jobs (spares skipped) and interactive
// agents outside any task, with the tmux session proven by pane ancestry. And
// which agents wait for the user (the dashboard sorts them first, the
// supervisor counts them in @fleet-attention). Pure except the loader.
import { AncestryCache, matchPaneAgents, type PaneAgent } from '../ownership/pane-agents';
import { isSpare } from '../registry/follow';
import { rowsByJob, rowsByParkedJob } from '../registry/row-index';
import { agentStateOf, agentWaits, type AgentState } from '../registry/hop';
import type { LiveRow } from '../registry/liveness';
import type { RegistryRow } from '../registry/schema';
import { timeMs } from '../registry/time';
import type { Tmux } from '../tmux/client';
import { readFleet } from '../fleet/read';
import type { FleetView, SessionView } from '../fleet/view';
import { isArchived } from '../tasks/schema';

/** What a live agent no task or session row shows is: a parked tab, a background job, an agent outside any task. */
export type FleetAgentRole = 'parked' | 'job' | 'agent';

export interface FleetAgent {
  kind: FleetAgentRole;
  /** The row's own session id (a parked tab's: the tab's). */
  sessionId: string;
  /** The job this row is (kind job) or parks its work on (kind parked); else null. */
  jobId: string | null;
  /** The tmux session the row runs in, proven by pane ancestry (parked tabs, agents), else null. */
  session: string | null;
  /** For a job: the tmux session of the tab that parked it, when that tab still runs in one. */
  parkedBy: string | null;
  /** The state of the row doing the work (a parked tab's job when its row is live), with its job's state file. */
  agent: AgentState;
  cwd: string | null;
  startedAt: number;
  /** When the working row last changed state (epoch ms), -Infinity when unknown. */
  since: number;
}

const isJobRow = (row: RegistryRow) => row.kind === 'bg';
const isTabRow = (row: RegistryRow) => row.kind === undefined || row.kind === 'interactive';

type Hop = FleetView['sessions'][number]['hop'];

/** The ids one task or session row shows: its own, and every row of its hop chain. */
function eachShownId(hop: Hop, own: string, visit: (id: string) => void): void {
  if (own) visit(own);
  if (!hop) return;
  visit(hop.base);
  for (const link of hop.follow.chain) visit(link.sessionId);
}

/** The session ids a task or session row of the dashboard already shows (every row of its hop chain). */
export function shownSessionIds(view: FleetView): Set<string> {
  const ids = new Set<string>();
  const add = (id: string) => ids.add(id);
  for (const t of view.tasks) eachShownId(t.hop, t.owner, add);
  for (const s of view.sessions) eachShownId(s.hop, s.stamp, add);
  return ids;
}

/**
 * shownSessionIds kept across the supervisor's wakes (docs/status.md#incremental-wakes):
 * each id counted once per row that shows it, so a wake that recomputed a few
 * sessions and tasks moves only their ids, not every chain of the fleet.
 */
export class ShownIds {
  private readonly counts = new Map<string, number>();
  private sessions: FleetView['sessions'] = [];
  private tasks: FleetView['tasks'] = [];
  private readonly add = (id: string) => this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  private readonly remove = (id: string) => {
    const n = (this.counts.get(id) ?? 0) - 1;
    if (n > 0) this.counts.set(id, n);
    else this.counts.delete(id);
  };

  has(id: string): boolean {
    return this.counts.has(id);
  }

  /** The ids of the entries replaced (index for index) moved from the old ones to the new. */
  private move<T extends { hop: Hop }>(before: readonly T[], now: readonly T[], own: (entry: T) => string): void {
    for (let i = 0; i < now.length; i++) {
      const was = before[i]!;
      const is = now[i]!;
      if (was === is) continue;
      eachShownId(was.hop, own(was), this.remove);
      eachShownId(is.hop, own(is), this.add);
    }
  }

  /**
   * The ids of a wake's view, moved as its plan computed it (src/fleet/plan.ts):
   * `all`, counted again from nothing; `rows` (updateView), its arrays the last
   * ones with some entries replaced, index for index; `sessions`
   * (updateViewForSnapshot), the ids moved from the session views it dropped to
   * those it computed again, the tasks' index for index. Arrays of another
   * length are counted again from nothing.
   */
  apply(view: FleetView, change: { kind: 'all' } | { kind: 'rows' } | { kind: 'sessions'; dropped: readonly SessionView[]; added: Iterable<SessionView> }): void {
    if (change.kind === 'all') this.reset(view);
    else if (change.kind === 'rows') this.update(view);
    else this.replace(view, change.dropped, change.added);
  }

  /** Every id of a view, counted again from nothing. */
  private reset(view: FleetView): void {
    this.counts.clear();
    for (const t of view.tasks) eachShownId(t.hop, t.owner, this.add);
    for (const s of view.sessions) eachShownId(s.hop, s.stamp, this.add);
    this.sessions = view.sessions;
    this.tasks = view.tasks;
  }

  /**
   * The view after updateViewForSnapshot: the sessions' ids moved from the
   * views it dropped to those it computed again, the tasks' index for index.
   */
  private replace(view: FleetView, dropped: readonly SessionView[], added: Iterable<SessionView>): void {
    if (view.tasks.length !== this.tasks.length) {
      this.reset(view);
      return;
    }
    for (const s of dropped) eachShownId(s.hop, s.stamp, this.remove);
    for (const s of added) eachShownId(s.hop, s.stamp, this.add);
    this.move(this.tasks, view.tasks, (t) => t.owner);
    this.sessions = view.sessions;
    this.tasks = view.tasks;
  }

  /**
   * The view after updateView: its arrays are the last ones with some entries
   * replaced, index for index (anything else is counted again from nothing).
   */
  private update(view: FleetView): void {
    if (view.sessions.length !== this.sessions.length || view.tasks.length !== this.tasks.length) {
      this.reset(view);
      return;
    }
    this.move(this.tasks, view.tasks, (t) => t.owner);
    this.move(this.sessions, view.sessions, (s) => s.stamp);
    this.sessions = view.sessions;
    this.tasks = view.tasks;
  }
}

/**
 * The agents no task or session row shows, from live rows only. `paneAgents`:
 * matchPaneAgents' result (session name -> agents proven under its panes);
 * `shown`: the view's shownSessionIds (the supervisor keeps them in a ShownIds);
 * `jobsOnly`: only the agents whose work is a job (parked tabs and jobs), the
 * only ones fleetWaiters counts: the supervisor's attention count at each wake.
 */
export function fleetAgents(
  view: FleetView,
  rows: readonly LiveRow[],
  paneAgents: ReadonlyMap<string, readonly PaneAgent[]>,
  shown: { has(id: string): boolean } = shownSessionIds(view),
  jobsOnly = false,
): FleetAgent[] {
  // The supervisor runs this at every wake: jobsOnly reads the rows that name a job through the indexes a wake
  // moves with the rows (src/registry/row-index.ts), not every row. The maps the listed agents need are built on first use.
  const jobRows = jobsOnly ? [...rowsByJob(rows).values()].flat() : rows;
  const tabRows = jobsOnly ? [...rowsByParkedJob(rows).values()].flat() : rows;
  const jobRow = new Map<string, LiveRow>();
  for (const r of jobRows) if (r.liveness === 'live' && isJobRow(r.row) && r.row.jobId && !isSpare(r.row)) jobRow.set(r.row.jobId, r);
  let sessionOfPid: Map<number, string> | null = null;
  const sessionOf = (pid: number): string | null => {
    if (sessionOfPid === null) {
      sessionOfPid = new Map();
      for (const [session, list] of paneAgents) for (const a of list) if (!sessionOfPid.has(a.row.pid)) sessionOfPid.set(a.row.pid, session);
    }
    return sessionOfPid.get(pid) ?? null;
  };
  // Which tmux session parked each job: a tab row under a pane, or a task session following it.
  let parkedBy: Map<string, string> | null = null;
  const parkedByOf = (jobId: string): string | null => {
    if (parkedBy === null) {
      parkedBy = new Map();
      for (const r of tabRows) {
        if (r.liveness !== 'live' || !r.row.parkedJobId) continue;
        const s = sessionOf(r.row.pid);
        if (s) parkedBy.set(r.row.parkedJobId, s);
      }
      for (const t of view.tasks) if (t.hop?.jobId && t.session) parkedBy.set(t.hop.jobId, t.session);
    }
    return parkedBy.get(jobId) ?? null;
  };

  const out: FleetAgent[] = [];
  const listedJobs = new Set<string>();
  for (const r of tabRows) {
    if (r.liveness !== 'live' || !isTabRow(r.row) || (jobsOnly && !r.row.parkedJobId) || shown.has(r.row.sessionId) || isSpare(r.row)) continue;
    const jobId = r.row.parkedJobId ?? null;
    const job = jobId ? jobRow.get(jobId) : undefined;
    const worker = job ?? r;
    if (job && jobId) listedJobs.add(jobId);
    out.push({
      kind: jobId ? 'parked' : 'agent',
      sessionId: r.row.sessionId,
      jobId,
      session: sessionOf(r.row.pid),
      parkedBy: null,
      agent: agentStateOf(worker),
      cwd: worker.row.cwd ?? r.row.cwd ?? null,
      startedAt: timeMs(r.row.startedAt),
      since: timeMs(worker.row.statusUpdatedAt ?? worker.row.updatedAt),
    });
  }
  for (const [jobId, r] of jobRow) {
    if (listedJobs.has(jobId) || shown.has(r.row.sessionId)) continue;
    out.push({
      kind: 'job',
      sessionId: r.row.sessionId,
      jobId,
      session: null,
      parkedBy: parkedByOf(jobId),
      agent: agentStateOf(r),
      cwd: r.row.cwd ?? null,
      startedAt: timeMs(r.row.startedAt),
      since: timeMs(r.row.statusUpdatedAt ?? r.row.updatedAt),
    });
  }
  return out;
}

/** An agent that waits for the user, and where to go to answer it. */
export interface Waiter {
  /** Stable while the same wait lasts: a new key is a new wait (toasted once). */
  key: string;
  /** `fix-login`, or `job 45a15a22`. */
  who: string;
  /** `approve Bash`, Claude Code's `needs` sentence, or `input`. */
  what: string;
  since: number;
  target: { kind: 'session'; session: string } | { kind: 'job'; jobId: string; parkedBy: string | null };
}

function waitText(a: AgentState): string {
  const text = (a.needs || a.waitingFor || 'input').replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  return text || 'input';
}

/**
 * Who waits for the user across the fleet: tasks' Drivers (the row their work
 * is attached to) and background jobs (those a stamped session follows
 * included, bound to a task it does not own or to none), each once (by key);
 * longest-waiting first.
 */
export function fleetWaiters(view: FleetView, agents: readonly FleetAgent[]): Waiter[] {
  const out: Waiter[] = [];
  const keys = new Set<string>();
  // The same wait reached twice (a task's Driver and its own session): counted once, under the task.
  const push = (w: Waiter) => {
    if (keys.has(w.key)) return;
    keys.add(w.key);
    out.push(w);
  };
  for (const t of view.tasks) {
    const a = t.state;
    // An archived task is out of the list (docs/tasks.md#archived-tasks).
    if (!a || !t.session || !agentWaits(a) || isArchived(t.task)) continue;
    const end = t.hop?.follow.rows[t.hop.follow.rows.length - 1];
    const what = waitText(a);
    push({
      key: `${a.sessionId}\0${what}`,
      who: t.slug,
      what,
      since: end ? timeMs(end.row.statusUpdatedAt ?? end.row.updatedAt) : (a.since ?? -Infinity),
      // Parked work waits in its job: that is where the wait is answered (opened in the task's session).
      target: t.hop?.jobId ? { kind: 'job', jobId: t.hop.jobId, parkedBy: t.session } : { kind: 'session', session: t.session },
    });
  }
  // A stamped session whose work is parked: its job is shown by the session's row, not as an agent. A Driver's was
  // counted under its task; a session bound to a task it does not own (one that lost a takeover) still has its job.
  for (const v of view.sessions) {
    const a = v.hop?.agent;
    const jobId = v.hop?.jobId;
    if (!jobId || !a || !agentWaits(a)) continue;
    const end = v.hop?.follow.rows[v.hop.follow.rows.length - 1];
    const what = waitText(a);
    push({
      key: `${a.sessionId}\0${what}`,
      who: `job ${jobId}`,
      what,
      since: end ? timeMs(end.row.statusUpdatedAt ?? end.row.updatedAt) : -Infinity,
      target: { kind: 'job', jobId, parkedBy: v.session },
    });
  }
  for (const g of agents) {
    if (g.kind === 'agent' || !g.jobId || !agentWaits(g.agent)) continue;
    const what = waitText(g.agent);
    push({
      key: `${g.agent.sessionId}\0${what}`,
      who: `job ${g.jobId}`,
      what,
      since: g.since,
      target: { kind: 'job', jobId: g.jobId, parkedBy: g.kind === 'parked' ? g.session : g.parkedBy },
    });
  }
  return out.sort((a, b) => a.since - b.since || a.who.localeCompare(b.who));
}

export interface DashboardData {
  view: FleetView;
  agents: FleetAgent[];
}

/** One look at the fleet for the dashboard and `attention`: one tmux call, the task files, the registry, /proc. */
export async function readDashboardData(tmux: Tmux, home: string, registry: string): Promise<DashboardData> {
  const { view, snap, data } = await readFleet(tmux, home, registry);
  const paneAgents = snap ? matchPaneAgents(snap.panes, data.rows, new AncestryCache()) : new Map<string, PaneAgent[]>();
  return { view, agents: fleetAgents(view, data.rows, paneAgents) };
}
