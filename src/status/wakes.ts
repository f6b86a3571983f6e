// What wakes the supervisor (docs/status.md#the-supervisor): file watches on
// the tasks, each task directory, the registry, the directory of each job a
// row names (its state file, docs/hop.md#the-job-state-file) and the run
// directory (where the nudge file is touched), tmux hooks for sessions that
// appear, close or are renamed (they touch the nudge file), and a slow poll
// that makes system calls only, never a process: directory and state-file
// signatures, and the caller's own checks (the server still there, a watched
// process gone).
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { stat } from '../fs-async';
import { runDir, signalsDir, tasksDir } from '../context';
import { JOB_ID_RE } from '../registry/job-id';
import { ROW_FILE_RE } from '../registry/reader';
import { JOB_STATE_FILE, jobsDirOf, stateFileSignature } from '../registry/jobs';
import { isValidSlug } from '../tasks/slug';
import type { Tmux } from '../tmux';
import { titleClassFormat } from '../agents/state';

const HOOK_INDEX = 4711;
/** How long after the supervisor starts writing a task file its events count as its own. */
const OWN_WRITE_MS = 1000;
/** The directories watched: tasks, the registry, run (the nudge), signals. */
const WATCHED_DIRS = 4;
// Windows too: a window opened for a background job shows the job (job-windows.ts). Clients too: what a client
// shows is seen (docs/notify.md#unseen), and the snapshot's client list is then always the one toasts go to.
const HOOKS = ['session-created', 'session-closed', 'session-renamed', 'window-linked', 'window-unlinked', 'client-session-changed', 'client-detached'];

/**
 * The hook command that touches the nudge file. tmux parses it when the hook
 * fires: in tmux's single quotes nothing is replaced; run-shell then expands
 * formats (so `#` is doubled: `#(...)` would run a command) and hands the rest
 * to sh, where the path sits in double quotes with `\`, `"`, `$` and a
 * backquote escaped (docs/tmux.md). Null when the path holds a single quote or
 * a control character, which neither quoting can carry: then no hook is
 * installed and the supervisor says so in the log.
 */
export function nudgeHookCommand(nudgeFile: string): string | null {
  if (/['\x00-\x1f\x7f]/.test(nudgeFile)) return null;
  const forSh = nudgeFile.replace(/[\\"$`]/g, (c) => `\\${c}`);
  return `run-shell -b 'touch "${forSh.replace(/#/g, '##')}"'`;
}

/**
 * The hook that wakes the supervisor when a pane's title changes class
 * (src/agents/state.ts: Codex CLI and Gemini CLI tell busy, idle and waiting
 * there): the class is a format tmux computes, kept in the pane's
 * @fleet-title-class, so the frames of a spinner (ten a second) start no
 * process; only a new class runs the nudge.
 */
export function titleHookCommand(nudge: string): string {
  const cls = titleClassFormat();
  return `if-shell -F '#{!=:#{${TITLE_CLASS_OPTION}},${cls}}' { set-option -p -F ${TITLE_CLASS_OPTION} '${cls}' ; ${nudge} }`;
}

/** The pane option where the title hook keeps each pane's title class. */
export const TITLE_CLASS_OPTION = '@fleet-title-class';
const TITLE_HOOK = 'pane-title-changed';

/** Installs the session hooks; false (nothing installed) when the nudge path cannot be put in a tmux command safely. */
export async function installWakeHooks(tmux: Tmux, nudgeFile: string): Promise<boolean> {
  const cmd = nudgeHookCommand(nudgeFile);
  if (cmd === null) return false;
  await tmux.chain([...HOOKS.map((h) => ['set-hook', '-g', `${h}[${HOOK_INDEX}]`, cmd]), ['set-hook', '-g', `${TITLE_HOOK}[${HOOK_INDEX}]`, titleHookCommand(cmd)]]);
  return true;
}

export async function removeWakeHooks(tmux: Tmux): Promise<void> {
  await tmux.chain([...HOOKS, TITLE_HOOK].map((h) => ['set-hook', '-gu', `${h}[${HOOK_INDEX}]`])).catch(() => undefined);
}

export interface WakeConfig {
  home: string;
  registryDir: string;
  intervalMs: number;
}

export interface WakeHandlers {
  /**
   * Something changed; `tmuxToo`: tmux may have changed too (tasks, a nudge, a
   * session hook). `own`: the supervisor's own write (expectOwnTaskWrite), news
   * to read but not a sign of a busy fleet.
   */
  wake(tmuxToo: boolean, own?: boolean): void;
  /** Run by every poll before it looks at the directories; true: stop polling (the server is gone). */
  beforePoll(): boolean;
  /** The watched processes the poll finds gone (none: an empty list); any asks for a wake. */
  deathSeen(): readonly number[];
}

export class Wakes {
  /** The tasks, registry and run directories' watches, by directory; one missing is tried again at each poll. */
  private dirWatchers = new Map<string, FSWatcher>();
  private taskWatchers = new Map<string, FSWatcher>();
  /** Per job a row names: its directory's watch (null while it cannot be watched) and its state file's last signature. */
  private jobWatchers = new Map<string, { watcher: FSWatcher | null; sig: string }>();
  private readonly jobsDir: string;
  private timer: NodeJS.Timeout | null = null;
  private sigs: Record<string, string> = {};
  /** Registry files reported changed since taken; null: unknown, read them all. */
  private registryChanged: Set<string> | null = null;
  /** Jobs whose state file changed since taken. */
  private jobsChanged = new Set<string>();
  /** Tasks whose directory's watch reported a change since taken; null: unknown, look at every task file. */
  private tasksChanged: Set<string> | null = null;
  /** Some task directory has no watch (it could not be made, or failed): every task file is looked at. */
  private taskWatchGaps = false;
  /** Session ids whose signal files (the agents' hooks) changed since taken; null: unknown, read them all. */
  private signalsChanged: Set<string> | null = null;
  /** Watched processes the poll found gone since taken: the next wake judges their rows again, no others. */
  private died = new Set<number>();
  /** The directories whose watch reported something since the last poll: a new mtime there is explained. */
  private heard = new Set<string>();
  /** The directories whose new mtime the last poll saw with nothing reported: unexplained at the next, a miss. */
  private doubted = new Set<string>();
  /**
   * Stopped: nothing is watched again. A poll or a caller's wake in flight when
   * stop() ran would otherwise open watches after it, and a persistent watch
   * keeps the process alive (follow --watch would never exit).
   */
  private stopped = false;
  /** Task files the supervisor itself is writing (the Driver's process recorded), until when their events are its own. */
  private ownTaskWrites = new Map<string, number>();

  constructor(
    private readonly cfg: WakeConfig,
    private readonly on: WakeHandlers,
  ) {
    this.jobsDir = jobsDirOf(cfg.registryDir);
  }

  start(): void {
    this.startWatches();
    this.timer = setInterval(() => void this.poll(), this.cfg.intervalMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.dirWatchers.forEach((w) => w.close());
    this.taskWatchers.forEach((w) => w.close());
    this.jobWatchers.forEach((j) => j.watcher?.close());
    this.dirWatchers.clear();
    this.taskWatchers.clear();
    this.jobWatchers.clear();
  }

  /**
   * The supervisor is about to write this task's file: the events of that
   * write, within OWN_WRITE_MS, still mark the task changed (the next wake
   * reads it) but wake it as its own (no tmux read, not counted toward a busy
   * fleet). At load it records the Driver's process of every task at once:
   * hundreds of its own writes must not slow the next change an agent makes
   * (docs/status.md#coalescing).
   */
  expectOwnTaskWrite(slug: string): void {
    this.ownTaskWrites.set(slug, Date.now() + OWN_WRITE_MS);
  }

  /**
   * Watches the directories of these jobs (the job ids of the live rows; any
   * other job's is closed). A state file changes what a job needs without its
   * row changing, so each write wakes the supervisor, with no tmux read. A job
   * newly watched asks for one more wake: its file may have changed between
   * the read that named it and the watch.
   */
  watchJobs(jobIds: Iterable<string>): void {
    if (this.stopped) return;
    const keep = new Set([...jobIds].filter((id) => JOB_ID_RE.test(id)));
    for (const [id, j] of this.jobWatchers) {
      if (keep.has(id)) continue;
      j.watcher?.close();
      this.jobWatchers.delete(id);
    }
    let added = false;
    for (const id of keep) {
      if (this.jobWatchers.has(id)) continue;
      this.jobWatchers.set(id, { watcher: this.watchJob(id), sig: stateFileSignature(this.jobsDir, id) });
      this.jobsChanged.add(id);
      added = true;
    }
    if (added && this.timer !== null) this.on.wake(false);
  }

  /** The jobs whose directories are watched (tests). */
  watchedJobs(): string[] {
    return [...this.jobWatchers.keys()];
  }

  private watchJob(id: string): FSWatcher | null {
    try {
      const w = watch(join(this.jobsDir, id), { persistent: true }, (_e, name) => {
        // state.json, renamed into place or written; the job's other files are not news.
        if (name && !String(name).startsWith(JOB_STATE_FILE)) return;
        const j = this.jobWatchers.get(id);
        if (j) j.sig = stateFileSignature(this.jobsDir, id);
        this.jobsChanged.add(id);
        this.on.wake(false);
      });
      w.on('error', () => undefined);
      return w;
    } catch {
      // No directory yet: the poll tries again.
      return null;
    }
  }

  /** Nothing reported is trusted any more (a wake failed after taking them): the next wake reads every row. */
  forgetChanges(): void {
    this.registryChanged = null;
    this.tasksChanged = null;
    this.signalsChanged = null;
  }

  /** The session ids whose signal files changed since the last call (null: read every one), and starts a new set. */
  takeSignalsChanged(): ReadonlySet<string> | null {
    const changed = this.signalsChanged;
    this.signalsChanged = new Set();
    return changed;
  }

  /** The watched processes the poll found gone since the last call, and starts a new set. */
  takeDeaths(): ReadonlySet<number> {
    const died = this.died;
    this.died = new Set();
    return died;
  }

  /** The jobs whose state files changed since the last call, and starts a new set. */
  takeJobsChanged(): ReadonlySet<string> {
    const changed = this.jobsChanged;
    this.jobsChanged = new Set();
    return changed;
  }

  /** The registry file names reported since the last call (null: read every file), and starts a new set. */
  takeRegistryChanged(): ReadonlySet<string> | null {
    const changed = this.registryChanged;
    this.registryChanged = new Set();
    return changed;
  }

  /**
   * Starts each directory's watch not yet running; true when one started. A
   * directory may appear after the supervisor (Claude Code makes its sessions
   * directory at its first start): each poll tries again, whether or not it
   * saw the directory appear.
   */
  private startWatches(): boolean {
    if (this.stopped) return false;
    const tasks = tasksDir(this.cfg.home);
    const signals = signalsDir(this.cfg.home);
    // The registry and the agents' hooks change what agents say, never what tmux holds: no tmux read for them.
    const dirs: [string, boolean][] = [
      [tasks, true],
      [this.cfg.registryDir, false],
      [runDir(this.cfg.home), true],
      [signals, false],
    ];
    let started = false;
    for (const [dir, tmuxToo] of dirs) {
      if (this.dirWatchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: true }, (_e, name) => {
          this.heard.add(dir);
          // A supervisor's own pid file changing is not news.
          if (name && String(name).startsWith('supervisor-')) return;
          if (dir === tasks) {
            // A task directory made, removed or replaced: every task file is looked at once.
            this.tasksChanged = null;
            this.watchTaskDirs();
          }
          if (dir === this.cfg.registryDir) {
            // A writer's temp file (made, then renamed over the row) is not news: the rename's event names the row.
            if (name && !ROW_FILE_RE.test(String(name))) return;
            if (name && this.registryChanged) this.registryChanged.add(String(name));
            else this.registryChanged = null;
          }
          if (dir === signals) {
            // <sid>.json renamed into place; the temp files it is written through are not news.
            const file = name ? String(name) : '';
            if (file.startsWith('.')) return;
            if (file.endsWith('.json') && this.signalsChanged) this.signalsChanged.add(file.slice(0, -'.json'.length));
            else this.signalsChanged = null;
          }
          this.on.wake(tmuxToo);
        });
        w.on('error', () => {
          // Removed, or no longer watchable: the poll starts it again.
          w.close();
          if (this.dirWatchers.get(dir) === w) this.dirWatchers.delete(dir);
        });
        this.dirWatchers.set(dir, w);
        started = true;
      } catch {
        // The directory may not exist yet: the poll tries again.
      }
    }
    this.watchTaskDirs();
    return started;
  }

  /**
   * One plain watch per task directory (task.json is renamed into it on every
   * write). Not fs.watch's `recursive`: on Linux, Node 20 implements that by
   * polling every file, which alone costs more CPU than the whole supervisor.
   */
  private watchTaskDirs(): void {
    if (this.stopped) return;
    let slugs: string[];
    try {
      slugs = readdirSync(tasksDir(this.cfg.home)).filter(isValidSlug);
    } catch {
      slugs = [];
    }
    const keep = new Set(slugs);
    for (const [slug, w] of this.taskWatchers) {
      if (!keep.has(slug)) {
        w.close();
        this.taskWatchers.delete(slug);
      }
    }
    for (const slug of slugs) {
      if (this.taskWatchers.has(slug)) continue;
      try {
        const w = watch(join(tasksDir(this.cfg.home), slug), { persistent: true }, (_e, name) => {
          if (name && !String(name).startsWith('task.json')) return; // lock and temp files
          this.tasksChanged?.add(slug);
          const own = (this.ownTaskWrites.get(slug) ?? 0) >= Date.now();
          this.on.wake(!own, own);
        });
        w.on('error', () => {
          // No longer watchable: its file is looked at by every wake until a new watch starts.
          w.close();
          if (this.taskWatchers.get(slug) === w) this.taskWatchers.delete(slug);
          this.taskWatchGaps = true;
        });
        this.taskWatchers.set(slug, w);
      } catch {
        // removed meanwhile
      }
    }
    this.taskWatchGaps = slugs.some((slug) => !this.taskWatchers.has(slug));
  }

  /**
   * The tasks whose files the watches reported changed since the last call
   * (null: look at every task file: the first call, a task directory made or
   * removed, one without a watch, a wake that failed), and starts a new set.
   */
  takeTasksChanged(): ReadonlySet<string> | null {
    const changed = this.taskWatchGaps ? null : this.tasksChanged;
    this.tasksChanged = new Set();
    return changed;
  }

  /** The slow poll: system calls only, never a process. */
  private async poll(): Promise<void> {
    if (this.on.beforePoll()) {
      this.stop();
      return;
    }
    for (const [slug, until] of this.ownTaskWrites) if (until < Date.now()) this.ownTaskWrites.delete(slug);
    let changed = false;
    let tasksChanged = false;
    const tasks = tasksDir(this.cfg.home);
    const signals = signalsDir(this.cfg.home);
    for (const dir of [tasks, this.cfg.registryDir, signals]) {
      // What the watch reported before this look; what it reports during the look counts for this poll and the next
      // (the look may or may not have seen that change).
      const heardBefore = this.heard.delete(dir);
      const sig = await stat(dir).then(
        (s) => `${s.mtimeMs}:${s.ino}`,
        () => 'missing',
      );
      const heard = heardBefore || this.heard.has(dir);
      const was = this.sigs[dir];
      if (was === undefined || was === sig) {
        this.sigs[dir] = sig;
        this.doubted.delete(dir);
        continue;
      }
      const inode = (s: string | undefined) => s?.split(':')[1];
      const replaced = inode(was) !== inode(sig) || !this.dirWatchers.has(dir);
      // The same directory with a new mtime, its watch having reported something: a file made, renamed or removed
      // there (a row renamed into place moves the directory's mtime), which the watch named and asked a wake for.
      // Nothing reported: its event may still be on its way (the look raced the write), so the next poll decides.
      if (!replaced && !heard && !this.doubted.has(dir)) {
        this.doubted.add(dir);
        continue;
      }
      this.doubted.delete(dir);
      this.sigs[dir] = sig;
      if (!replaced && heard) continue;
      changed = true;
      if (dir === tasks) {
        tasksChanged = true;
        this.tasksChanged = null;
      }
      // Something the watch may have missed: read every row (every signal).
      else if (dir === signals) this.signalsChanged = null;
      else this.registryChanged = null;
      // Gone or replaced (another inode): its watch sees nothing more; the next lines start a new one.
      if (inode(was) !== inode(sig)) {
        this.dirWatchers.get(dir)?.close();
        this.dirWatchers.delete(dir);
      }
    }
    // A directory watched only from now: what was written before the watch is read (every row).
    if (this.dirWatchers.size < WATCHED_DIRS && this.startWatches()) {
      this.registryChanged = null;
      this.signalsChanged = null;
      changed = true;
    }
    // Each watched job's state file: one lstat each; a job whose directory could not be watched is tried again.
    for (const [id, j] of this.jobWatchers) {
      if (j.watcher === null) j.watcher = this.watchJob(id);
      const sig = stateFileSignature(this.jobsDir, id);
      if (sig !== j.sig) {
        j.sig = sig;
        this.jobsChanged.add(id);
        changed = true;
      }
    }
    // A death changes liveness without a file: the next wake judges the rows of the processes gone again.
    const died = this.on.deathSeen();
    for (const pid of died) this.died.add(pid);
    if (changed || died.length > 0) this.on.wake(tasksChanged);
  }
}
