// The fleet as one view: every task and every stamped or task-bound session,
// with verdict, liveness, hop and agent state. Computed in memory from one
// tmux snapshot, the task files and the registry. The supervisor, `tasks` and
// the dashboard all use it, so they never disagree.
import { judgeFromSnapshot, type Decision } from '../ownership/judge';
import { LivenessReader, liveRows, mostAlive, recordedLiveness, type Liveness, type LiveRow, type RecordedProcess } from '../registry/liveness';
import { agentProcessLiveness, parseAgentProcess, type AgentProcess } from '../agents/agent-process';
import { isAgentKind, type AgentKind } from '../agents/kind';
import { CachedRegistryReader, readRegistry, type RegistrySnapshot } from '../registry/reader';
import { HopTracker, type HopEvent, type SessionHop } from '../registry/hop';
import { attachJobStates, CachedJobStates, jobsDirOf, rowJobIds, withJobStates } from '../registry/jobs';
import { errorMessage, FleetError } from '../errors';
import type { Tmux } from '../tmux/client';
import { ownerSid, type Task } from '../tasks/schema';
import { CachedTaskLister, listTasks, type TaskEntry } from '../tasks/store';
import type { NonceStamp } from '../tmux/session-marks';
import { readSnapshot, type SessionSnap, type TmuxSnapshot } from '../tmux/snapshot';

export interface FleetData {
  tasks: TaskEntry[];
  registry: RegistrySnapshot;
  rows: LiveRow[];
  /** Whether each pid named by the rows existed when liveness was judged (the supervisor's cached load only). */
  pidsExist?: ReadonlyMap<number, boolean>;
  /** Liveness of the Driver processes tasks recorded, for owners no registry row holds any more. */
  recorded: ReadonlyMap<string, Liveness>;
}

/**
 * The recorded Driver processes of owners that no live registry row holds
 * (docs/ownership.md#liveness): a row of another process, or a dead one,
 * never outweighs the recorded process.
 */
async function recordedDrivers(tasks: readonly TaskEntry[], rows: readonly LiveRow[]): Promise<ReadonlyMap<string, Liveness>> {
  const held = new Set(rows.filter((r) => r.liveness === 'live').map((r) => r.row.sessionId));
  const recorded: RecordedProcess[] = [];
  for (const t of tasks) {
    const task = t.task;
    const owner = task ? ownerSid(task) : '';
    if (task && owner !== '' && (task.driverPid !== undefined || task.driverJobId) && !held.has(owner)) {
      recorded.push({ sid: owner, pid: task.driverPid, procStart: task.driverProcStart, jobId: task.driverJobId });
    }
  }
  return recorded.length > 0 ? recordedLiveness(recorded, rows) : new Map();
}

/**
 * Task files and the registry with liveness and the jobs' state files:
 * file reads and system calls, no process where /proc exists.
 */
export async function loadFleetData(home: string, registry: string): Promise<FleetData> {
  const [tasks, reg] = await Promise.all([listTasks(home), readRegistry(registry)]);
  const rows = attachJobStates(await liveRows(reg), registry);
  return { tasks, registry: reg, rows, recorded: await recordedDrivers(tasks, rows) };
}

/** The same for a long-lived reader (the supervisor): unchanged files are not read again, start times are kept. */
export class CachedFleetData {
  private readonly tasks: CachedTaskLister;
  private readonly registry: CachedRegistryReader;
  constructor(
    home: string,
    registry: string,
    private readonly liveness: LivenessReader = new LivenessReader(),
  ) {
    this.tasks = new CachedTaskLister(home);
    this.registry = new CachedRegistryReader(registry);
    this.jobs = new CachedJobStates(jobsDirOf(registry));
  }

  private readonly jobs: CachedJobStates;

  private lastTasks: TaskEntry[] | null = null;

  /**
   * `tasksToo` false: only the registry changed; the task list of the last load is kept.
   * `registryChanged`: the registry files to look at again (null: all of them).
   */
  async load(tasksToo = true, registryChanged: ReadonlySet<string> | null = null): Promise<FleetData> {
    const [tasks, reg] = await Promise.all([
      tasksToo || this.lastTasks === null ? this.tasks.list() : Promise.resolve(this.lastTasks),
      this.registry.read(registryChanged),
    ]);
    this.lastTasks = tasks;
    const live = await this.liveness.liveRows(reg);
    // Each job's state file is looked at on every load (one lstat when unchanged): a wait can change without its row changing.
    const rows = withJobStates(live, this.jobs.read(rowJobIds(live)));
    return { tasks, registry: reg, rows, pidsExist: this.liveness.lastExists, recorded: await recordedDrivers(tasks, rows) };
  }
}

export interface SessionView {
  session: string;
  stamp: string;
  /** The task this session is bound to (@fleet-task), or the task its stamp drives. */
  slug: string | null;
  decision: Decision | null;
  hop: SessionHop | undefined;
  created: number;
  attached: boolean;
  /** The stamped agent is gone from the session's panes (docs/ownership.md#the-stamp-without-the-hook). */
  agentGone: boolean;
  /** The session's agent, as its process shows it (the stamp's recorded process, else the one under its panes); null when none is known. */
  agent: AgentKind | null;
  /** Why the agent under the panes cannot be tied to the session (Codex's daemon mode), or null. */
  unprovable: string | null;
}

export interface TaskView {
  slug: string;
  task: Task | null;
  error: string | null;
  /** ownerSid, or '' while pending. */
  owner: string;
  /** The verdict for the session its pane holds now (driverPane), asked as that session's stamp. */
  decision: Decision;
  /** The session now driving it, when one can be named (driverPane while pending, else the session stamped with the owner). */
  session: string | null;
  hop: SessionHop | undefined;
  updatedAt: string | null;
  /** The Driver's agent: as the task recorded it from its process, else as its session's shows it; null when not known. */
  agent: AgentKind | null;
}

export interface FleetView {
  sessions: SessionView[];
  tasks: TaskView[];
  events: HopEvent[];
  /** Why tmux could not be read, when it could not. */
  tmuxError: string | null;
  /** Registry facts for the header. */
  registry: { dir: string; readable: boolean; rows: number; malformed: number };
}

function taskBySlug(tasks: readonly TaskEntry[]): Map<string, TaskEntry> {
  return new Map(tasks.map((t) => [t.slug, t]));
}

/**
 * Computes the whole view. The tracker keeps the previous chain ends, so a
 * change of chain end (a park, or the work coming back) comes out as an event.
 */
/**
 * The liveness of the agent process each stamp recorded (@fleet-stamp-agent),
 * by session id: the most alive of the sessions that carry it.
 */
export function stampProcessLiveness(
  sessions: readonly Pick<SessionSnap, 'stamp' | 'agentProc'>[],
  liveness: (p: AgentProcess) => Liveness = agentProcessLiveness,
): Map<string, Liveness> {
  const out = new Map<string, Liveness>();
  for (const s of sessions) {
    const p = s.stamp !== '' && s.agentProc ? parseAgentProcess(s.agentProc) : null;
    if (p) out.set(s.stamp, mostAlive([out.get(s.stamp) ?? 'gone', liveness(p)]) as Liveness);
  }
  return out;
}

/** What the proof found of each session beyond its stamp. */
export interface SessionProof {
  /** The stamped agent is gone from the session's panes. */
  agentGone: ReadonlySet<string>;
  /** Sessions whose agent cannot be tied to them, with why (Codex's app-server daemon). */
  unprovable?: ReadonlyMap<string, string>;
  /** The agent under each session's panes, as its process shows it. */
  kinds?: ReadonlyMap<string, { kind: AgentKind }>;
  /** How a recorded process's liveness is read (the supervisor's cached reader). */
  processLiveness?: (p: AgentProcess) => Liveness;
}

/** A session's agent: the kind its stamp recorded, else the nearest agent the proof found under its panes. */
function agentKindOf(s: Pick<SessionSnap, 'name' | 'agentProc'>, kinds?: ReadonlyMap<string, { kind: AgentKind }>): AgentKind | null {
  const recorded = s.agentProc ? parseAgentProcess(s.agentProc) : null;
  if (recorded && recorded.kind !== 'other') return recorded.kind;
  return kinds?.get(s.name)?.kind ?? null;
}

export function computeView(snap: TmuxSnapshot | null, data: FleetData, tracker: HopTracker, proof: SessionProof = { agentGone: new Set() }): FleetView {
  const agentGone = proof.agentGone;
  // No snapshot: tmux could not be read, so pending verdicts are 5 (cannot tell), never guesses.
  const nonceStamps = snap ? new Map<string, NonceStamp>(snap.sessions.map((s) => [s.name, { nonce: s.nonce, stamp: s.stamp }])) : null;
  const snapshot: TmuxSnapshot = snap ?? { sessions: [], clients: [], panes: [], config: {} };
  const registry = { readable: data.registry.readable, rows: data.rows, recorded: data.recorded };
  const stampProcesses = stampProcessLiveness(snapshot.sessions, proof.processLiveness);
  const bySlug = taskBySlug(data.tasks);
  const judge = (slug: string, asker: string): Decision => {
    const entry = bySlug.get(slug);
    return judgeFromSnapshot({
      slug,
      task: entry?.task ?? null,
      taskError: entry?.error ? entry.error.problem : undefined,
      asker,
      sessions: nonceStamps,
      registry,
      stampProcesses,
    });
  };
  const update = tracker.update(
    snapshot.sessions.filter((s) => s.stamp !== '').map((s) => [s.name, s.stamp] as const),
    data.rows,
  );

  // A stamp that drives a task (e.g. after a takeover from another session) binds that session to it.
  const drivenBy = new Map<string, string>();
  for (const t of [...data.tasks].sort((a, b) => (a.task?.updatedAt ?? '').localeCompare(b.task?.updatedAt ?? ''))) {
    const owner = t.task ? ownerSid(t.task) : '';
    if (owner) drivenBy.set(owner, t.slug);
  }

  const sessions: SessionView[] = [];
  for (const s of snapshot.sessions) {
    const slug = s.task || drivenBy.get(s.stamp) || null;
    if (!slug && !s.stamp) continue;
    sessions.push({
      session: s.name,
      stamp: s.stamp,
      slug,
      decision: slug ? judge(slug, s.stamp) : null,
      hop: update.sessions.get(s.name),
      created: Number(s.created) || 0,
      attached: s.attached !== '' && s.attached !== '0',
      agentGone: agentGone.has(s.name),
      agent: agentKindOf(s, proof.kinds),
      unprovable: proof.unprovable?.get(s.name) ?? null,
    });
  }

  const byStamp = new Map<string, SessionSnap>();
  for (const s of snapshot.sessions) if (s.stamp) byStamp.set(s.stamp, s);
  const tasks: TaskView[] = data.tasks.map((entry) => {
    const task = entry.task ?? null;
    const owner = task ? ownerSid(task) : '';
    let session: string | null = null;
    if (owner) session = byStamp.get(owner)?.name ?? null;
    else if (task?.driverPane && snapshot.sessions.some((s) => s.name === task.driverPane)) session = task.driverPane;
    const asker = session ? (snapshot.sessions.find((s) => s.name === session)?.stamp ?? '') : '';
    return {
      slug: entry.slug,
      task,
      error: entry.error ? entry.error.message : null,
      owner,
      decision: judge(entry.slug, asker),
      session,
      hop: session ? update.sessions.get(session) : undefined,
      updatedAt: task?.updatedAt ?? null,
      agent: isAgentKind(task?.driverAgent) ? task.driverAgent : (sessions.find((s) => s.session === session)?.agent ?? null),
    };
  });
  return {
    sessions,
    tasks,
    events: update.events,
    tmuxError: null,
    registry: { dir: data.registry.dir, readable: data.registry.readable, rows: data.rows.length, malformed: data.registry.malformed },
  };
}

/**
 * `tasks`, the dashboard and `attention` without the sessions: with tasks to
 * judge, no verdict can be told (a live owner would show as 9 other), so each
 * says so and lists nothing (exit 1). No tasks: nothing to tell wrong.
 */
export function assertVerdictsTellable(view: FleetView, tmux: Tmux, command: string): void {
  if (view.tmuxError && view.tasks.some((t) => t.task !== null)) {
    throw new FleetError(`${command}: ${tmux.describeServer()} is unreachable, so no verdict can be told: ${view.tmuxError.replace(/^tmux \S+ on [^:]+: /, '')}`);
  }
}

/** One look at the fleet, for `tasks` and the dashboard: one tmux call, the task files, the registry. */
export async function readFleetView(tmux: Tmux, home: string, registry: string): Promise<FleetView> {
  const [snapResult, data] = await Promise.all([
    readSnapshot(tmux).then(
      (s) => ({ snap: s, error: null as string | null }),
      (err: unknown) => ({ snap: null, error: errorMessage(err) }),
    ),
    loadFleetData(home, registry),
  ]);
  const view = computeView(snapResult.snap, data, new HopTracker());
  return { ...view, tmuxError: snapResult.error };
}
