// The fleet as one view: every task and every stamped or task-bound session,
// with verdict, liveness, hop and agent state, computed in memory from one
// tmux snapshot and the fleet's data (src/fleet/data.ts). The supervisor,
// `tasks` and the dashboard all use it, so they never disagree.
import { judgeFromSnapshot, type Decision } from '../ownership/judge';
import { mostAlive, type Liveness } from '../registry/liveness';
import { agentProcessLiveness, parseAgentProcess, type AgentProcess } from '../agents/agent-process';
import { isAgentKind, type AgentKind } from '../agents/kind';
import { HopTracker, type HopEvent, type SessionHop } from '../registry/hop';
import { ownerSid, type Task } from '../tasks/schema';
import type { TaskEntry } from '../tasks/store';
import type { NonceStamp } from '../tmux/session-marks';
import type { SessionSnap, TmuxSnapshot } from '../tmux/snapshot';
import type { AgentSignal } from '../agents/signals';
import { otherAgentState, titleState, withHookNeeds } from '../agents/state';
import { timeMs } from '../registry/time';
import type { AgentState } from '../registry/hop';
import { taskDir } from '../context';
import { lockHeld } from '../tasks/lock';
import { isValidSlug } from '../tasks/slug';
import type { FleetData } from './data';

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
  /**
   * What the status shows of the session's agent: the attached row's state
   * (Claude Code; a wait of its own with its hook's sentence), else what a
   * Codex CLI or Gemini CLI said through its hooks and its pane's title; null
   * when nothing tells.
   */
  state: AgentState | null;
  /** What finished here while no client showed it (@fleet-unseen: `<epoch s> <sentence>`), '' when seen. */
  unseen: string;
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
  /** What the status shows of the Driver's agent (SessionView.state of its session). */
  state: AgentState | null;
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
  /** The agent under each session's panes, as its process shows it, and its pane. */
  kinds?: ReadonlyMap<string, { kind: AgentKind; pane?: string }>;
  /** How a recorded process's liveness is read (the supervisor's cached reader). */
  processLiveness?: (p: AgentProcess) => Liveness;
  /** The tasks whose lock a live process held, looked at before the task files were read (spawnLocks). */
  spawnLocked?: ReadonlySet<string>;
}

/**
 * The tasks a spawn may be writing now, among those of the sessions that
 * carry a spawn nonce the record (as last read; null: none read yet) does not
 * explain: a task whose lock a live process holds (docs/status.md#segments).
 * Read before the task files, so that a record written after this look is
 * read, and a lock released before it means the record is there. A few file
 * reads, only for such sessions.
 */
export function spawnLocks(home: string, snapshot: TmuxSnapshot | null, last: readonly TaskEntry[] | null): Set<string> {
  const out = new Set<string>();
  if (snapshot === null) return out;
  const bySlug = last ? taskInputs(last).bySlug : null;
  for (const s of snapshot.sessions) {
    if (s.task === '' || s.nonce === '' || out.has(s.task) || !isValidSlug(s.task)) continue;
    const task = bySlug?.get(s.task)?.task;
    // Explained: the record names this nonce (pending), or this session's stamp as its owner.
    if (task && (task.spawnNonce === s.nonce || (ownerSid(task) !== '' && ownerSid(task) === s.stamp))) continue;
    if (lockHeld(taskDir(home, s.task))) out.add(s.task);
  }
  return out;
}

/** A session's agent: the kind its stamp recorded, else the nearest agent the proof found under its panes. */
function agentKindOf(s: Pick<SessionSnap, 'name' | 'agentProc'>, kinds?: ReadonlyMap<string, { kind: AgentKind }>): AgentKind | null {
  const recorded = s.agentProc ? parseAgentProcess(s.agentProc) : null;
  if (recorded && recorded.kind !== 'other') return recorded.kind;
  return kinds?.get(s.name)?.kind ?? null;
}

/** What a view's sessions and tasks are computed from: the snapshot's and task files' inputs, the data, the proof. */
interface ViewInputs
  extends Pick<SnapshotInputs, 'snapshot' | 'sessionByName' | 'byStamp' | 'drivenBy' | 'bySlug' | 'sessionsOfSid' | 'sessionsOfSlug' | 'placeOf' | 'titleOfPane' | 'panesOfSession'> {
  /** The verdict for `asker`, the stamp of a session carrying the spawn nonce `nonce` ('' when none). */
  judge(slug: string, asker: string, nonce: string): Decision;
  proof: SessionProof;
  /** The signal of `sid` when the pane it names is one of this session's (a hook's claim, checked). */
  signalOf(s: SessionSnap, sid: string): AgentSignal | null;
}

/** What a view computes from the tmux snapshot and the task files alone: the same for every wake that changes only rows. */
interface SnapshotInputs {
  snapshot: TmuxSnapshot;
  nonceStamps: ReadonlyMap<string, NonceStamp> | null;
  stampProcesses: ReadonlyMap<string, Liveness>;
  sessionByName: ReadonlyMap<string, SessionSnap>;
  byStamp: ReadonlyMap<string, SessionSnap>;
  /** The task each stamp drives (e.g. after a takeover from another session). */
  drivenBy: ReadonlyMap<string, string>;
  bySlug: ReadonlyMap<string, TaskEntry>;
  /** Per session id: the sessions whose task (bound or driven) it owns, and the session it stamps; each with its place in the snapshot. */
  sessionsOfSid: ReadonlyMap<string, readonly number[]>;
  /** Per task: the places of the sessions that show it (bound, or driven by their stamp). */
  sessionsOfSlug: ReadonlyMap<string, readonly number[]>;
  /** Each session's place in the snapshot, by name. */
  placeOf: ReadonlyMap<string, number>;
  /** Each pane's session and title, by pane id; each session's panes. */
  sessionOfPane: ReadonlyMap<string, string>;
  titleOfPane: ReadonlyMap<string, string>;
  panesOfSession: ReadonlyMap<string, readonly string[]>;
}

/**
 * The last SnapshotInputs of a snapshot, with the task list they were made
 * from: a wake for changed rows (the same snapshot and tasks) reuses them
 * rather than index 500 sessions again (docs/status.md#incremental-wakes).
 * The stamps' recorded processes are judged again by a full wake: a death
 * brings one.
 */
const snapshotInputsCache = new WeakMap<TmuxSnapshot, { tasks: readonly TaskEntry[]; inputs: SnapshotInputs }>();

/** What the view reads of the task list alone, once per list (CachedTaskLister gives the same list back while no task changed). */
const taskInputsCache = new WeakMap<readonly TaskEntry[], { drivenBy: ReadonlyMap<string, string>; bySlug: ReadonlyMap<string, TaskEntry> }>();

function taskInputs(tasks: readonly TaskEntry[]): { drivenBy: ReadonlyMap<string, string>; bySlug: ReadonlyMap<string, TaskEntry> } {
  const cached = taskInputsCache.get(tasks);
  if (cached) return cached;
  const drivenBy = new Map<string, string>();
  for (const t of [...tasks].sort((a, b) => (a.task?.updatedAt ?? '').localeCompare(b.task?.updatedAt ?? ''))) {
    const owner = t.task ? ownerSid(t.task) : '';
    if (owner) drivenBy.set(owner, t.slug);
  }
  const inputs = { drivenBy, bySlug: taskBySlug(tasks) };
  taskInputsCache.set(tasks, inputs);
  return inputs;
}

function snapshotInputs(snap: TmuxSnapshot | null, tasks: readonly TaskEntry[], proof: SessionProof, reuse: boolean): SnapshotInputs {
  const cached = snap && reuse ? snapshotInputsCache.get(snap) : undefined;
  if (cached && cached.tasks === tasks) return cached.inputs;
  // No snapshot: tmux could not be read, so pending verdicts are 5 (cannot tell), never guesses.
  const nonceStamps = snap ? new Map<string, NonceStamp>(snap.sessions.map((s) => [s.name, { nonce: s.nonce, stamp: s.stamp }])) : null;
  const snapshot: TmuxSnapshot = snap ?? { sessions: [], clients: [], panes: [], config: {} };
  const { drivenBy, bySlug } = taskInputs(tasks);
  const byStamp = new Map<string, SessionSnap>();
  for (const s of snapshot.sessions) if (s.stamp) byStamp.set(s.stamp, s);
  const sessionsOfSid = new Map<string, number[]>();
  const sessionsOfSlug = new Map<string, number[]>();
  const placeOf = new Map<string, number>();
  const add = (index: Map<string, number[]>, key: string, i: number) => {
    if (key === '') return;
    const list = index.get(key);
    if (list === undefined) index.set(key, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  snapshot.sessions.forEach((s, i) => {
    placeOf.set(s.name, i);
    add(sessionsOfSid, s.stamp, i);
    const slug = s.task || drivenBy.get(s.stamp);
    if (slug) add(sessionsOfSlug, slug, i);
    const task = slug ? bySlug.get(slug)?.task : null;
    if (task) add(sessionsOfSid, ownerSid(task), i);
  });
  const sessionOfPane = new Map<string, string>();
  const titleOfPane = new Map<string, string>();
  const panesOfSession = new Map<string, string[]>();
  for (const p of snapshot.panes) {
    sessionOfPane.set(p.id, p.session);
    if (p.title) titleOfPane.set(p.id, p.title);
    const list = panesOfSession.get(p.session);
    if (list) list.push(p.id);
    else panesOfSession.set(p.session, [p.id]);
  }
  const inputs: SnapshotInputs = {
    sessionOfPane,
    titleOfPane,
    panesOfSession,
    snapshot,
    nonceStamps,
    stampProcesses: stampProcessLiveness(snapshot.sessions, proof.processLiveness),
    sessionByName: new Map(snapshot.sessions.map((s) => [s.name, s])),
    byStamp,
    drivenBy,
    bySlug,
    sessionsOfSid,
    sessionsOfSlug,
    placeOf,
  };
  if (snap) snapshotInputsCache.set(snap, { tasks, inputs });
  return inputs;
}

/** `reuse`: the snapshot's inputs as the last view of the same snapshot and tasks made them (a wake for changed rows). */
export function viewInputs(snap: TmuxSnapshot | null, data: FleetData, proof: SessionProof, reuse = false): ViewInputs {
  const { snapshot, nonceStamps, stampProcesses, sessionByName, byStamp, drivenBy, bySlug, sessionsOfSid, sessionsOfSlug, placeOf, sessionOfPane, titleOfPane, panesOfSession } = snapshotInputs(
    snap,
    data.tasks,
    proof,
    reuse,
  );
  const registry = { readable: data.registry.readable, rows: data.rows, recorded: data.recorded };
  const locked = proof.spawnLocked;
  const judge = (slug: string, asker: string, nonce: string): Decision => {
    const entry = bySlug.get(slug);
    return judgeFromSnapshot({
      slug,
      task: entry?.task ?? null,
      taskError: entry?.error ? entry.error.problem : undefined,
      asker,
      sessions: nonceStamps,
      registry,
      stampProcesses,
      askerNonce: nonce,
      locked: () => locked?.has(slug) ?? false,
    });
  };
  const signalOf = (s: SessionSnap, sid: string): AgentSignal | null => {
    const signal = data.signals.get(sid);
    return signal && signal.pane !== null && sessionOfPane.get(signal.pane) === s.name ? signal : null;
  };
  return { snapshot, sessionByName, byStamp, drivenBy, bySlug, sessionsOfSid, sessionsOfSlug, placeOf, judge, proof, signalOf, titleOfPane, panesOfSession };
}

/**
 * What the status shows of a session's agent (SessionView.state): Claude Code's
 * attached row, a wait of the tab's own with its PermissionRequest hook's
 * sentence; Codex CLI and Gemini CLI from their hooks and pane title
 * (src/agents/state.ts). The signal counts only from a pane of this session.
 */
function sessionAgentState(s: SessionSnap, agent: AgentKind | null, hop: SessionHop | undefined, v: ViewInputs): AgentState | null {
  if (hop?.agent) {
    if (hop.following) return hop.agent;
    const end = hop.follow.rows[hop.follow.rows.length - 1];
    return withHookNeeds(hop.agent, v.signalOf(s, hop.agent.sessionId), end ? timeMs(end.row.statusUpdatedAt ?? end.row.updatedAt) : -Infinity);
  }
  if (s.stamp === '' || (agent !== 'codex' && agent !== 'gemini')) return null;
  const signal = v.signalOf(s, s.stamp);
  // The agent's pane: where the proof found it, else where its hook ran, else the session's pane titled as that agent
  // titles it (tasks and the dashboard run no proof: they read the same panes, and agree with the status line).
  const pane = v.proof.kinds?.get(s.name)?.pane ?? signal?.pane ?? v.panesOfSession.get(s.name)?.find((p) => titleState(agent, v.titleOfPane.get(p) ?? '') !== null) ?? null;
  return otherAgentState(agent, s.stamp, signal, pane === null ? null : (v.titleOfPane.get(pane) ?? null));
}

/** The task a session shows: the one bound to it (@fleet-task), else the one its stamp drives. */
function slugOf(s: SessionSnap, v: ViewInputs): string | null {
  return s.task || v.drivenBy.get(s.stamp) || null;
}

/** A session's view, or null for a session neither stamped nor bound to a task. */
export function sessionView(s: SessionSnap, v: ViewInputs, hops: ReadonlyMap<string, SessionHop>): SessionView | null {
  const slug = slugOf(s, v);
  if (!slug && !s.stamp) return null;
  const hop = hops.get(s.name);
  const agent = agentKindOf(s, v.proof.kinds);
  return {
    session: s.name,
    stamp: s.stamp,
    slug,
    decision: slug ? v.judge(slug, s.stamp, s.task === slug ? s.nonce : '') : null,
    hop,
    created: Number(s.created) || 0,
    attached: s.attached !== '' && s.attached !== '0',
    agentGone: v.proof.agentGone.has(s.name),
    agent,
    unprovable: v.proof.unprovable?.get(s.name) ?? null,
    state: sessionAgentState(s, agent, hop, v),
    unseen: s.unseen ?? '',
  };
}

/**
 * The agent kind of a session's view (sessionView's), read from the snapshot
 * and the proof rather than from the views: a task's session is looked up,
 * not found in a map of every session built per wake.
 */
function agentOfSession(name: string, v: ViewInputs): AgentKind | null {
  const s = v.sessionByName.get(name);
  return s && (s.stamp || slugOf(s, v)) ? agentKindOf(s, v.proof.kinds) : null;
}

/** The session now driving a task: its owner's stamped session, or its driverPane while pending. */
function taskSession(task: Task | null, v: ViewInputs): string | null {
  const owner = task ? ownerSid(task) : '';
  if (owner) return v.byStamp.get(owner)?.name ?? null;
  return task?.driverPane && v.sessionByName.has(task.driverPane) ? task.driverPane : null;
}

function taskView(entry: TaskEntry, v: ViewInputs, hops: ReadonlyMap<string, SessionHop>): TaskView {
  const task = entry.task ?? null;
  const session = taskSession(task, v);
  const snap = session ? v.sessionByName.get(session) : undefined;
  const hop = session ? hops.get(session) : undefined;
  const agent = isAgentKind(task?.driverAgent) ? task.driverAgent : session ? agentOfSession(session, v) : null;
  return {
    slug: entry.slug,
    task,
    error: entry.error ? entry.error.message : null,
    owner: task ? ownerSid(task) : '',
    decision: v.judge(entry.slug, snap?.stamp ?? '', snap?.task === entry.slug ? snap.nonce : ''),
    session,
    hop,
    updatedAt: task?.updatedAt ?? null,
    agent,
    state: snap ? sessionAgentState(snap, agent, hop, v) : (hop?.agent ?? null),
  };
}

const stampsOfSnapshot = (snapshot: TmuxSnapshot) => snapshot.sessions.filter((s) => s.stamp !== '').map((s) => [s.name, s.stamp] as const);

/** A view of these sessions and tasks, with the registry facts of the data. */
export function fleetView(sessions: SessionView[], tasks: TaskView[], events: HopEvent[], data: FleetData): FleetView {
  return {
    sessions,
    tasks,
    events,
    tmuxError: null,
    registry: { dir: data.registry.dir, readable: data.registry.readable, rows: data.rows.length, malformed: data.registry.malformed },
  };
}

/**
 * The tasks of the last view with those `again` picks computed again: the
 * same task files as the last view's (the callers' precondition), so
 * index-aligned.
 */
export function tasksAgain(prev: readonly TaskView[], data: FleetData, v: ViewInputs, hops: ReadonlyMap<string, SessionHop>, again: (old: TaskView, i: number) => boolean): TaskView[] {
  return prev.map((old, i) => (again(old, i) ? taskView(data.tasks[i] as TaskEntry, v, hops) : old));
}

/**
 * Computes the whole view. The tracker keeps the previous chain ends, so a
 * change of chain end (a park, or the work coming back) comes out as an event.
 */
export function computeView(snap: TmuxSnapshot | null, data: FleetData, tracker: HopTracker, proof: SessionProof = { agentGone: new Set() }): FleetView {
  const v = viewInputs(snap, data, proof);
  const update = tracker.update(stampsOfSnapshot(v.snapshot), data.rows);
  const sessions: SessionView[] = [];
  for (const s of v.snapshot.sessions) {
    const view = sessionView(s, v, update.sessions);
    if (view) sessions.push(view);
  }
  const tasks = data.tasks.map((entry) => taskView(entry, v, update.sessions));
  return fleetView(sessions, tasks, update.events, data);
}
