// What the fleet view is computed from (docs/status.md#the-supervisor): the
// task files, the registry's rows with their liveness and their jobs' state
// files, the recorded Drivers' processes and the agents' hook signals; read
// whole (loadFleetData: tasks, the dashboard) or kept and read again where a
// watch saw a change (CachedFleetData: the supervisor).
import { basename } from 'node:path';
import { LivenessReader, liveRows, recordedLiveness, type Liveness, type LiveRow, type RecordedProcess } from '../registry/liveness';
import { CachedRegistryReader, readRegistry, type RegistrySnapshot, type RowChange } from '../registry/reader';
import type { RegistryRow } from '../registry/schema';
import { moveRowIndexes, rowsBySession } from '../registry/row-index';
import { attachJobStates, CachedJobStates, jobsDirOf, rowJobIds, withJobStates } from '../registry/jobs';
import { ownerSid } from '../tasks/schema';
import { CachedTaskLister, listTasks, type TaskEntry } from '../tasks/store';
import { readSignals, type AgentSignal } from '../agents/signals';

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
export async function loadRegistryData(registry: string): Promise<{ reg: RegistrySnapshot; rows: LiveRow[] }> {
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
