// The fleet as one view: every task and every stamped or task-bound session,
// with verdict, liveness, hop and agent state. Computed in memory from one
// tmux snapshot, the task files and the registry. The supervisor, `tasks` and
// the dashboard all use it, so they never disagree.
import { basename } from 'node:path';
import { judgeFromSnapshot, type Decision } from '../ownership/judge';
import { LivenessReader, liveRows, mostAlive, recordedLiveness, type Liveness, type LiveRow, type RecordedProcess } from '../registry/liveness';
import { agentProcessLiveness, parseAgentProcess, type AgentProcess } from '../agents/agent-process';
import { isAgentKind, type AgentKind } from '../agents/kind';
import { CachedRegistryReader, readRegistry, type RegistrySnapshot, type RowChange } from '../registry/reader';
import type { RegistryRow } from '../registry/schema';
import { HopTracker, type HopEvent, type SessionHop } from '../registry/hop';
import { follow } from '../registry/follow';
import { moveRowIndexes, rowsBySession } from '../registry/row-index';
import { attachJobStates, CachedJobStates, jobsDirOf, rowJobIds, withJobStates } from '../registry/jobs';
import { errorMessage, FleetError } from '../errors';
import { UNREACHABLE_SERVER_FIX, type Tmux } from '../tmux/client';
import { ownerSid, type Task } from '../tasks/schema';
import { CachedTaskLister, listTasks, type TaskEntry } from '../tasks/store';
import type { NonceStamp } from '../tmux/session-marks';
import { readSnapshot, type SessionSnap, type TmuxSnapshot } from '../tmux/snapshot';
import type { SnapshotDiff } from './snapshot-diff';
import { addTo, removeFrom } from '../set-index';
import { readSignals, type AgentSignal } from '../agents/signals';
import { otherAgentState, titleState, withHookNeeds } from '../agents/state';
import { timeMs } from '../registry/time';
import type { AgentState } from '../registry/hop';
import { taskDir } from '../context';
import { lockHeld } from '../tasks/lock';
import { isValidSlug } from '../tasks/slug';

export interface FleetData {
  tasks: TaskEntry[];
  registry: RegistrySnapshot;
  rows: LiveRow[];
  /** Whether each pid named by the rows existed when liveness was judged (the supervisor's cached load only). */
  pidsExist?: ReadonlyMap<number, boolean>;
  /** Liveness of the Driver processes tasks recorded, for owners no registry row holds any more. */
  recorded: ReadonlyMap<string, Liveness>;
  /** What each agent's hooks said last, by session id (src/agents/signals.ts). */
  signals: ReadonlyMap<string, AgentSignal>;
}

/**
 * The recorded Driver processes of owners that no live registry row holds
 * (docs/ownership.md#liveness): a row of another process, or a dead one,
 * never outweighs the recorded process.
 */
async function recordedDrivers(tasks: readonly TaskEntry[], rows: readonly LiveRow[]): Promise<ReadonlyMap<string, Liveness>> {
  const bySid = rowsBySession(rows);
  const held = (sid: string) => bySid.get(sid)?.some((r) => r.liveness === 'live') ?? false;
  const recorded: RecordedProcess[] = [];
  for (const t of tasks) {
    const task = t.task;
    const owner = task ? ownerSid(task) : '';
    if (task && owner !== '' && (task.driverPid !== undefined || task.driverJobId) && !held(owner)) {
      recorded.push({ sid: owner, pid: task.driverPid, procStart: task.driverProcStart, jobId: task.driverJobId });
    }
  }
  return recorded.length > 0 ? recordedLiveness(recorded, rows) : new Map();
}

/** The registry with liveness and the jobs' state files. */
async function loadRegistryData(registry: string): Promise<{ reg: RegistrySnapshot; rows: LiveRow[] }> {
  const reg = await readRegistry(registry);
  return { reg, rows: attachJobStates(await liveRows(reg), registry) };
}

/**
 * Task files and the registry with liveness and the jobs' state files:
 * file reads and system calls, no process where /proc exists. `registryRead`:
 * the registry's read, already started.
 */
export async function loadFleetData(home: string, registry: string, registryRead = loadRegistryData(registry)): Promise<FleetData> {
  const [tasks, { reg, rows }] = await Promise.all([listTasks(home), registryRead]);
  return { tasks, registry: reg, rows, recorded: await recordedDrivers(tasks, rows), signals: readSignals(home) };
}

/** Two signals say the same (the view shows the same). */
const sameSignal = (a: AgentSignal | undefined, b: AgentSignal | undefined) =>
  a === b || (!!a && !!b && a.state === b.state && a.needs === b.needs && a.at === b.at && a.pane === b.pane && a.agent === b.agent);

/** A load of the long-lived reader: the data, and what changed since its last load. */
export interface FleetLoad extends FleetData {
  /**
   * The session and job ids whose rows or job states changed since the last
   * load; null when anything may have changed (the tasks, tmux, a death, a
   * full read of the registry).
   */
  touched: ReadonlySet<string> | null;
  /** With `touched`: the rows that changed, as they were (those gone or replaced) and as they are now. */
  changed?: { before: readonly RegistryRow[]; after: readonly LiveRow[] };
}

/** The ids a row is looked up by: its session id, its job, the job it parks on. */
function rowKeys(row: RegistryRow, into: Set<string>): void {
  into.add(row.sessionId);
  if (row.jobId) into.add(row.jobId);
  if (row.parkedJobId) into.add(row.parkedJobId);
}

/** The same for a long-lived reader (the supervisor): unchanged files are not read again, start times are kept. */
export class CachedFleetData {
  private readonly tasks: CachedTaskLister;
  private readonly registry: CachedRegistryReader;
  private readonly jobs: CachedJobStates;
  private lastTasks: TaskEntry[] | null = null;
  /** The last load, and its rows by file, for a load that reads only what changed. */
  private last: FleetData | null = null;
  private rowByFile = new Map<string, LiveRow>();
  /** The session ids and jobs the tasks' recorded Drivers are judged by. */
  private recordedKeys = new Set<string>();
  /** The agents' last hook signals, by session id. */
  private signals = new Map<string, AgentSignal>();

  constructor(
    private readonly home: string,
    registry: string,
    private readonly liveness: LivenessReader = new LivenessReader(),
  ) {
    this.tasks = new CachedTaskLister(home);
    this.registry = new CachedRegistryReader(registry);
    this.jobs = new CachedJobStates(jobsDirOf(registry));
  }

  /** The task list of the last load (null before the first). */
  get tasksLastRead(): readonly TaskEntry[] | null {
    return this.lastTasks;
  }

  /** Registry row files opened so far. */
  get rowsRead(): number {
    return this.registry.filesRead;
  }

  /**
   * `tasksToo` false: only the registry (or a job's state file) changed; the
   * task list of the last load is kept. Either way, while the task list is the
   * same (CachedTaskLister gives the last list back), only the rows that
   * changed are judged again (docs/status.md#incremental-wakes).
   * `registryChanged`: the registry files to look at again (null: all of them).
   * `jobsChanged`: the jobs whose state files to read again.
   * `tasksChanged`: the tasks whose files to look at again (null: all of them).
   * `signalsChanged`: the session ids whose signal files to read again (null: all of them).
   * `died`: watched processes found gone (the poll): the rows of those pids are
   * judged again as if their files had changed; a pid no row holds (a stamp's
   * recorded process) has every row judged again.
   */
  async load(
    tasksToo = true,
    registryChanged: ReadonlySet<string> | null = null,
    jobsChanged: ReadonlySet<string> = new Set(),
    tasksChanged: ReadonlySet<string> | null = null,
    signalsChanged: ReadonlySet<string> | null = null,
    died: ReadonlySet<number> = new Set(),
  ): Promise<FleetLoad> {
    const signalsTouched = this.loadSignals(signalsChanged);
    const [tasks, reg] = await Promise.all([
      tasksToo || this.lastTasks === null ? this.tasks.list(tasksChanged) : Promise.resolve(this.lastTasks),
      this.registry.read(registryChanged),
    ]);
    this.lastTasks = tasks;
    const fileChanges = this.registry.lastChanges;
    const last = this.last;
    const changes = fileChanges === null ? null : died.size === 0 ? fileChanges : this.withDeaths(fileChanges, died);
    // A tmux wake lists the tasks again; the same list back (no task file changed) keeps the rows' incremental read.
    if (changes !== null && last !== null && last.tasks === tasks && reg.readable && last.registry.readable) {
      return this.loadChanged(last, reg, changes, jobsChanged, signalsTouched);
    }
    const live = await this.liveness.liveRows(reg);
    // Each job's state file is looked at on a full load (one lstat when unchanged): a wait can change without its row changing.
    const rows = withJobStates(live, this.jobs.read(rowJobIds(live)));
    const recorded = await recordedDrivers(tasks, rows);
    this.rowByFile = new Map(reg.entries.map((e, i) => [e.file, rows[i] as LiveRow]));
    this.recordedKeys = recordedKeysOf(tasks);
    this.registry.keepFirst(neededFiles(reg.entries, this.recordedKeys));
    this.last = { tasks, registry: reg, rows, pidsExist: this.liveness.lastExists, recorded, signals: this.signals };
    return { ...this.last, touched: null };
  }

  /**
   * The file changes with a change added for each row held whose process is
   * among `died` and whose file did not change (the same row before and after:
   * its liveness is judged again); null when a pid of `died` is in no row held
   * (a stamp's recorded process: every row is judged again).
   */
  private withDeaths(changes: readonly RowChange[], died: ReadonlySet<number>): RowChange[] | null {
    const out = [...changes];
    const changedFiles = new Set(changes.map((c) => c.file));
    const found = new Set<number>();
    for (const [file, r] of this.rowByFile) {
      if (!died.has(r.row.pid)) continue;
      found.add(r.row.pid);
      if (!changedFiles.has(file)) out.push({ file, before: r.row, after: r.row });
    }
    return found.size === died.size ? out : null;
  }

  /**
   * The signal files of `changed` read again (null: every one); the session
   * ids whose signal now says something else. The map is replaced, never
   * changed in place: the last load's data keeps its own.
   */
  private loadSignals(changed: ReadonlySet<string> | null): Set<string> {
    const before = this.signals;
    const now = changed === null ? readSignals(this.home) : new Map(before);
    if (changed !== null) {
      const read = readSignals(this.home, changed);
      for (const sid of changed) {
        const s = read.get(sid);
        if (s) now.set(sid, s);
        else now.delete(sid);
      }
    }
    const touched = new Set<string>();
    for (const [sid, s] of now) if (!sameSignal(before.get(sid), s)) touched.add(sid);
    for (const sid of before.keys()) if (!now.has(sid)) touched.add(sid);
    this.signals = touched.size === 0 ? before : now;
    return touched;
  }

  private async loadChanged(
    last: FleetData,
    reg: RegistrySnapshot,
    changes: readonly RowChange[],
    jobsChanged: ReadonlySet<string>,
    signalsTouched: ReadonlySet<string>,
  ): Promise<FleetLoad> {
    const touched = new Set<string>(signalsTouched);
    const fresh: RegistryRow[] = [];
    const removed: number[] = [];
    for (const c of changes) {
      if (c.before) rowKeys(c.before, touched);
      if (c.after) {
        rowKeys(c.after, touched);
        fresh.push(c.after);
      } else if (c.before) removed.push(c.before.pid);
    }
    for (const id of jobsChanged) touched.add(id);
    const judged = await this.liveness.changedRows(fresh, removed.filter((pid) => !fresh.some((r) => r.pid === pid)));
    const states = this.jobs.readSome(new Set([...jobsChanged, ...rowJobIds(judged)]));
    const withJob = (r: LiveRow): LiveRow => {
      const job = r.row.jobId ? states.get(r.row.jobId) : undefined;
      if (job) return { ...r, job };
      if (r.job === undefined) return r;
      const { job: _gone, ...rest } = r;
      return rest;
    };
    let i = 0;
    const after: LiveRow[] = [];
    for (const c of changes) {
      if (c.after) {
        const r = withJob(judged[i++] as LiveRow);
        this.rowByFile.set(c.file, r);
        after.push(r);
      } else this.rowByFile.delete(c.file);
    }
    if (jobsChanged.size > 0) {
      for (const [file, r] of this.rowByFile) if (r.row.jobId && jobsChanged.has(r.row.jobId)) this.rowByFile.set(file, withJob(r));
    }
    const rows = changes.length === 0 && jobsChanged.size === 0 ? last.rows : this.rowsNow(last.rows, reg, changes, jobsChanged);
    // The recorded Drivers are judged again only when a row of theirs changed (a death brings a full load), and only theirs.
    const recordedTouched = [...touched].filter((k) => this.recordedKeys.has(k));
    const recorded = recordedTouched.length > 0 ? await this.recordedAgain(last, rows, new Set(recordedTouched)) : last.recorded;
    this.last = { tasks: last.tasks, registry: reg, rows, pidsExist: this.liveness.lastExists, recorded, signals: this.signals };
    const before = changes.flatMap((c) => (c.before ? [c.before] : []));
    return { ...this.last, touched, changed: { before, after } };
  }

  /**
   * The rows after a wake: the last rows with the changed ones swapped in, in
   * place, when every change rewrote a row the reader held (its place kept);
   * otherwise every entry looked up again.
   */
  private rowsNow(lastRows: LiveRow[], reg: RegistrySnapshot, changes: readonly RowChange[], jobsChanged: ReadonlySet<string>): LiveRow[] {
    const whole = () => reg.entries.map((e) => this.rowByFile.get(e.file) as LiveRow);
    if (jobsChanged.size > 0 || lastRows.length !== reg.entries.length || changes.some((c) => !c.before || !c.after)) return whole();
    const rows = lastRows.slice();
    const swapped: [LiveRow, LiveRow][] = [];
    for (const c of changes) {
      const i = this.registry.entryPosition(c.file);
      const now = this.rowByFile.get(c.file);
      if (i === undefined || reg.entries[i]?.file !== c.file || !now) return whole();
      swapped.push([rows[i] as LiveRow, now]);
      rows[i] = now;
    }
    moveRowIndexes(lastRows, rows, swapped);
    return rows;
  }

  /** The recorded Drivers with those of the tasks whose owner or parked job is in `keys` judged again. */
  private async recordedAgain(last: FleetData, rows: readonly LiveRow[], keys: ReadonlySet<string>): Promise<ReadonlyMap<string, Liveness>> {
    const hit = (t: TaskEntry) => t.task && (keys.has(ownerSid(t.task)) || (t.task.driverJobId !== undefined && keys.has(t.task.driverJobId)));
    // Every task of an owner hit: the map holds one value per owner.
    const owners = new Set(last.tasks.filter(hit).map((t) => (t.task ? ownerSid(t.task) : '')));
    const tasks = last.tasks.filter((t) => t.task && owners.has(ownerSid(t.task)));
    const again = await recordedDrivers(tasks, rows);
    const recorded = new Map(last.recorded);
    for (const t of tasks) if (t.task) recorded.delete(ownerSid(t.task));
    for (const [sid, liveness] of again) recorded.set(sid, liveness);
    return recorded;
  }
}

/**
 * The row files that a task or a chain needs, by name, for the reader to keep
 * first when over its cap (docs/hop.md#reading-the-registry): the rows of the
 * tasks' owners and their jobs, and of the jobs rows park on.
 */
function neededFiles(entries: readonly { file: string; row: RegistryRow }[], taskKeys: ReadonlySet<string>): Set<string> {
  const keys = new Set(taskKeys);
  for (const e of entries) if (e.row.parkedJobId) keys.add(e.row.parkedJobId);
  const files = new Set<string>();
  for (const e of entries) if (keys.has(e.row.sessionId) || (e.row.jobId && keys.has(e.row.jobId))) files.add(basename(e.file));
  return files;
}

/** The ids the recorded Drivers' liveness reads rows by: their owners and parked jobs. */
function recordedKeysOf(tasks: readonly TaskEntry[]): Set<string> {
  const keys = new Set<string>();
  for (const t of tasks) {
    const owner = t.task ? ownerSid(t.task) : '';
    if (owner) keys.add(owner);
    if (t.task?.driverJobId) keys.add(t.task.driverJobId);
  }
  return keys;
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

/** What a view's sessions and tasks are computed from: one snapshot, the data, the proof. */
interface ViewInputs {
  snapshot: TmuxSnapshot;
  sessionByName: ReadonlyMap<string, SessionSnap>;
  byStamp: ReadonlyMap<string, SessionSnap>;
  /** The task each stamp drives (e.g. after a takeover from another session). */
  drivenBy: ReadonlyMap<string, string>;
  bySlug: ReadonlyMap<string, TaskEntry>;
  sessionsOfSid: ReadonlyMap<string, readonly number[]>;
  sessionsOfSlug: ReadonlyMap<string, readonly number[]>;
  placeOf: ReadonlyMap<string, number>;
  /** The verdict for `asker`, the stamp of a session carrying the spawn nonce `nonce` ('' when none). */
  judge(slug: string, asker: string, nonce: string): Decision;
  proof: SessionProof;
  /** The signal of `sid` when the pane it names is one of this session's (a hook's claim, checked). */
  signalOf(s: SessionSnap, sid: string): AgentSignal | null;
  /** A pane's title, by pane id. */
  titleOfPane: ReadonlyMap<string, string>;
  /** Each session's panes, in the snapshot's order. */
  panesOfSession: ReadonlyMap<string, readonly string[]>;
}

/** What a view computes from the tmux snapshot and the task files alone: the same for every wake that changes only rows. */
interface SnapshotInputs {
  snapshot: TmuxSnapshot;
  nonceStamps: ReadonlyMap<string, NonceStamp> | null;
  stampProcesses: ReadonlyMap<string, Liveness>;
  sessionByName: ReadonlyMap<string, SessionSnap>;
  byStamp: ReadonlyMap<string, SessionSnap>;
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
function viewInputs(snap: TmuxSnapshot | null, data: FleetData, proof: SessionProof, reuse = false): ViewInputs {
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
function sessionView(s: SessionSnap, v: ViewInputs, hops: ReadonlyMap<string, SessionHop>): SessionView | null {
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
function fleetView(sessions: SessionView[], tasks: TaskView[], events: HopEvent[], data: FleetData): FleetView {
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
function tasksAgain(prev: readonly TaskView[], data: FleetData, v: ViewInputs, hops: ReadonlyMap<string, SessionHop>, again: (old: TaskView, i: number) => boolean): TaskView[] {
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

/**
 * The session and job ids whose rows decide what a session id shows: the id
 * itself and every link of its Follow chain (a row of any of them changing
 * can change its hop, its agent state or its liveness).
 */
export function chainKeys(sid: string, rows: readonly LiveRow[]): string[] {
  const keys = [sid];
  for (const link of follow(rows, sid).chain) {
    keys.push(link.sessionId);
    if (link.jobId) keys.push(link.jobId);
    if (link.parkedJobId) keys.push(link.parkedJobId);
  }
  return keys;
}

/**
 * Per session id a view was computed for (stamps, owners), the ids of its
 * chain (chainKeys), and the other way round: a wake finds the session ids a
 * change touches by the ids it names, not by a look at every session
 * (docs/status.md#incremental-wakes).
 */
export class ChainKeyIndex {
  private readonly keysOf = new Map<string, readonly string[]>();
  private readonly sidsOf = new Map<string, Set<string>>();

  get(sid: string): readonly string[] | undefined {
    return this.keysOf.get(sid);
  }

  has(sid: string): boolean {
    return this.keysOf.has(sid);
  }

  set(sid: string, keys: readonly string[]): void {
    for (const k of this.keysOf.get(sid) ?? []) removeFrom(this.sidsOf, k, sid);
    this.keysOf.set(sid, keys);
    for (const k of keys) addTo(this.sidsOf, k, sid);
  }

  clear(): void {
    this.keysOf.clear();
    this.sidsOf.clear();
  }

  /** The session ids whose chains hold any of `ids`. */
  touchedBy(ids: Iterable<string>): Set<string> {
    const out = new Set<string>();
    for (const id of ids) for (const sid of this.sidsOf.get(id) ?? []) out.add(sid);
    return out;
  }
}

/** What an incremental view was asked to recompute, and what it did (tests, the supervisor's stats). */
export interface ViewUpdate {
  view: FleetView;
  /** The sessions whose views were computed again. */
  sessions: ReadonlySet<string>;
  /** Their views now, by session name (the segments to render again). */
  redone: ReadonlyMap<string, SessionView>;
}

/**
 * The view after a change of registry rows or job states alone, with the
 * same tmux snapshot and task files as `prev`
 * (docs/status.md#incremental-wakes): only the sessions and tasks whose
 * session ids, or whose chains' ids, the change touched are computed again;
 * the others keep their views. `hitSids`: the session ids the change touched
 * and those whose chains (as of `prev`) hold one of them (ChainKeyIndex.touchedBy);
 * `goneChanged`: the sessions whose stamped agent was found gone, or back, by
 * this wake's proof.
 */
export function updateView(
  prev: FleetView,
  snap: TmuxSnapshot,
  data: FleetData,
  tracker: HopTracker,
  proof: SessionProof,
  hitSids: ReadonlySet<string>,
  goneChanged: ReadonlySet<string> = new Set(),
): ViewUpdate {
  const v = viewInputs(snap, data, proof, true);
  const hit = (sid: string) => sid !== '' && hitSids.has(sid);
  // The sessions whose stamp, or whose task's owner, the change hit (found by look-ups), and those whose agent was found gone or back.
  const places = new Set<number>();
  for (const sid of hitSids) for (const i of v.sessionsOfSid.get(sid) ?? []) places.add(i);
  for (const name of goneChanged) {
    const i = v.placeOf.get(name);
    if (i !== undefined) places.add(i);
  }
  const redo = new Set<string>();
  for (const i of [...places].sort((a, b) => a - b)) redo.add((v.snapshot.sessions[i] as SessionSnap).name);
  // In snapshot order, as redo was filled.
  const stamps: [string, string][] = [];
  for (const name of redo) {
    const stamp = v.sessionByName.get(name)?.stamp;
    if (stamp) stamps.push([name, stamp]);
  }
  const update = tracker.updateSome(stamps, data.rows);
  const redone = new Map<string, SessionView>();
  const sessions = prev.sessions.map((old) => {
    if (!redo.has(old.session)) return old;
    const s = v.sessionByName.get(old.session);
    const now = (s && sessionView(s, v, update.sessions)) || old;
    redone.set(now.session, now);
    return now;
  });
  const tasks = tasksAgain(prev.tasks, data, v, update.sessions, (old) => hit(old.owner) || (old.session !== null && redo.has(old.session)));
  return { view: fleetView(sessions, tasks, update.events, data), sessions: redo, redone };
}

/** What updateViewForSnapshot computed again, and the views it replaced (the shown ids move with them). */
export interface SnapshotViewUpdate extends ViewUpdate {
  /** The views of the last wake that are gone or replaced. */
  dropped: readonly SessionView[];
  /** Sessions computed again that show nothing now (neither stamped nor bound): their segments are cleared. */
  cleared: ReadonlySet<string>;
}

/**
 * The view after tmux changed (a new snapshot; rows may have changed too),
 * with the same task files as `prev` (docs/status.md#incremental-wakes): the
 * sessions the snapshot diff names, and what depends on them, are computed
 * again. A task depends on the sessions carrying its owner's stamp and on its
 * driverPane (the judge reads their stamps, nonces and recorded processes); a
 * session on its task. `hitSids`: the session ids a row change touched (as
 * for updateView); `goneChanged`: sessions whose stamped agent was found gone,
 * or back, by this wake's proof.
 */
export function updateViewForSnapshot(
  prev: FleetView,
  snap: TmuxSnapshot,
  data: FleetData,
  tracker: HopTracker,
  proof: SessionProof,
  diff: SnapshotDiff,
  hitSids: ReadonlySet<string>,
  goneChanged: ReadonlySet<string>,
): SnapshotViewUpdate {
  const v = viewInputs(snap, data, proof);
  // The ids and names whose holders changed: a verdict reading any of them may change.
  const sids = new Set(hitSids);
  const names = new Set([...diff.changed, ...diff.removed]);
  for (const name of diff.changed) {
    const stamp = v.sessionByName.get(name)?.stamp;
    if (stamp) sids.add(stamp);
  }
  for (const s of diff.before.values()) if (s.stamp) sids.add(s.stamp);
  const taskRedo = new Set<number>();
  data.tasks.forEach((entry, i) => {
    const task = entry.task;
    if (!task) return;
    const owner = ownerSid(task);
    const pane = task.driverPane;
    const paneStamp = pane ? v.sessionByName.get(pane)?.stamp : undefined;
    if ((owner !== '' && sids.has(owner)) || (pane && names.has(pane)) || (paneStamp && sids.has(paneStamp))) taskRedo.add(i);
  });
  const places = new Set<number>();
  for (const name of diff.changed) places.add(v.placeOf.get(name) as number);
  for (const name of goneChanged) {
    const i = v.placeOf.get(name);
    if (i !== undefined) places.add(i);
  }
  for (const sid of sids) for (const i of v.sessionsOfSid.get(sid) ?? []) places.add(i);
  for (const t of taskRedo) for (const i of v.sessionsOfSlug.get((data.tasks[t] as TaskEntry).slug) ?? []) places.add(i);
  const redo = new Set<string>();
  const stamps: [string, string][] = [];
  const unstamped: string[] = [...diff.removed];
  for (const i of [...places].sort((a, b) => a - b)) {
    const s = v.snapshot.sessions[i] as SessionSnap;
    redo.add(s.name);
    if (s.stamp) stamps.push([s.name, s.stamp]);
    else unstamped.push(s.name);
  }
  tracker.forget(unstamped);
  const update = tracker.updateSome(stamps, data.rows);
  const prevByName = new Map(prev.sessions.map((s) => [s.session, s]));
  const dropped: SessionView[] = [];
  for (const name of diff.removed) {
    const old = prevByName.get(name);
    if (old) dropped.push(old);
  }
  const redone = new Map<string, SessionView>();
  const cleared = new Set<string>();
  const sessions: SessionView[] = [];
  for (const s of v.snapshot.sessions) {
    const old = prevByName.get(s.name);
    if (!redo.has(s.name)) {
      if (old) sessions.push(old);
      continue;
    }
    if (old) dropped.push(old);
    const now = sessionView(s, v, update.sessions);
    if (now) {
      sessions.push(now);
      redone.set(s.name, now);
    } else cleared.add(s.name);
  }
  const tasks = tasksAgain(
    prev.tasks,
    data,
    v,
    update.sessions,
    (old, i) => taskRedo.has(i) || (old.session !== null && (redo.has(old.session) || diff.removed.has(old.session))),
  );
  return { view: fleetView(sessions, tasks, update.events, data), sessions: redo, redone, dropped, cleared };
}

/**
 * `tasks`, the dashboard and `attention` without the sessions: with tasks to
 * judge, no verdict can be told (a live owner would show as 9 other), so each
 * says so and lists nothing (exit 1). No tasks: nothing to tell wrong.
 */
export function assertVerdictsTellable(view: FleetView, tmux: Tmux, command: string): void {
  if (view.tmuxError && view.tasks.some((t) => t.task !== null)) {
    throw new FleetError(`${command}: ${tmux.describeServer()} is unreachable, so no verdict can be told: ${view.tmuxError.replace(/^tmux \S+ on [^:]+: /, '')}; fix: ${UNREACHABLE_SERVER_FIX}`);
  }
}

/** One look at the fleet, for `tasks`, the dashboard and `attention`: one tmux call, the task files, the registry. */
export async function readFleet(tmux: Tmux, home: string, registry: string): Promise<{ view: FleetView; snap: TmuxSnapshot | null; data: FleetData }> {
  // The registry is read meanwhile; the task files after the snapshot's spawn locks (spawnLocks).
  const rows = loadRegistryData(registry);
  const snapResult = await readSnapshot(tmux).then(
    (snap) => ({ snap: snap as TmuxSnapshot | null, error: null as string | null }),
    (err: unknown) => ({ snap: null, error: errorMessage(err) }),
  );
  const spawnLocked = spawnLocks(home, snapResult.snap, null);
  const data = await loadFleetData(home, registry, rows);
  const view = computeView(snapResult.snap, data, new HopTracker(), { agentGone: new Set(), spawnLocked });
  return { view: { ...view, tmuxError: snapResult.error }, snap: snapResult.snap, data };
}

export async function readFleetView(tmux: Tmux, home: string, registry: string): Promise<FleetView> {
  return (await readFleet(tmux, home, registry)).view;
}
