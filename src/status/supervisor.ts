// The supervisor: one per tmux server. It keeps @fleet-owner, @fleet-hop and
// @fleet-agent true for every session, so drawing the status line starts no
// process. It wakes on file watches (tasks, registry, its nudge file), on
// SIGUSR2 from stamp/spawn/takeover, and on a slow poll that only makes
// system calls; each wake is one tmux read, the verdicts and hops computed in
// memory, and the changed options written in one tmux call.
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, stat, unlink, writeFile, writeNewFile } from '../fs-async';
import { join } from 'node:path';
import { runDir, tasksDir } from '../context';
import { FleetError, errorMessage } from '../errors';
import { appendLog } from '../log';
import { isValidSlug } from '../tasks/slug';
import { pidsExisting, processIdentity, stillRunning, type ProcessIdentity } from '../proc';
import type { Tmux } from '../tmux';
import { applyChanges, type OptionChange, type Toast } from '../tmux/apply';
import { readSnapshot, type TmuxSnapshot } from '../tmux/snapshot';
import { livePidFromFile, pidFileContent, serverKey, supervisorPidFile } from '../nudge';

export const SEGMENT_OPTIONS = ['@fleet-owner', '@fleet-hop', '@fleet-agent'] as const;
export type SegmentOption = (typeof SEGMENT_OPTIONS)[number];

export interface Rendered {
  /** Desired segment values per session name ('' = nothing to show). */
  values: Map<string, Record<SegmentOption, string>>;
  /** Messages for the clients attached to a session. */
  toasts: { session: string; text: string }[];
}

/** What changed since the last render, as far as the supervisor knows. */
export interface RenderHint {
  /** Only the registry changed: the task files need not be looked at again. */
  registryOnly: boolean;
  /** Registry file names the watch reported; null: look at every file. */
  registryChanged: ReadonlySet<string> | null;
}

/** Computes what every session should show from one tmux snapshot (reads files, starts no process). */
export type Render = (snapshot: TmuxSnapshot, hint: RenderHint) => Promise<Rendered>;

export interface SupervisorConfig {
  tmux: Tmux;
  home: string;
  registryDir: string;
  socketPath: string;
  /** The server's pid (#{pid}): the supervisor lives as long as that process. */
  serverPid: number;
  intervalMs: number;
  render: Render;
  /** Extra formats read with every snapshot (style options). */
  formats?: Record<string, string>;
}

/** Diff of desired against current values: only what changed is written. */
export function diffSegments(snapshot: TmuxSnapshot, values: Rendered['values']): OptionChange[] {
  const changes: OptionChange[] = [];
  const current: Record<SegmentOption, keyof TmuxSnapshot['sessions'][number]> = {
    '@fleet-owner': 'owner',
    '@fleet-hop': 'hop',
    '@fleet-agent': 'agent',
  };
  for (const s of snapshot.sessions) {
    const want = values.get(s.name);
    for (const option of SEGMENT_OPTIONS) {
      const value = want?.[option] ?? '';
      if (s[current[option]] !== value) changes.push({ session: s.name, option, value });
    }
  }
  return changes;
}

/** What tmux holds after our write: the snapshot kept for the next registry-only wake. */
export function applyToSnapshot(snapshot: TmuxSnapshot, changes: readonly OptionChange[]): void {
  const field: Record<string, 'owner' | 'hop' | 'agent'> = { '@fleet-owner': 'owner', '@fleet-hop': 'hop', '@fleet-agent': 'agent' };
  const byName = new Map(snapshot.sessions.map((s) => [s.name, s]));
  for (const c of changes) {
    const s = byName.get(c.session);
    const f = field[c.option];
    if (s && f) s[f] = c.value;
  }
}

export function toastsForClients(snapshot: TmuxSnapshot, toasts: Rendered['toasts']): Toast[] {
  const out: Toast[] = [];
  for (const t of toasts) {
    for (const c of snapshot.clients) {
      if (c.session === t.session && c.control !== '1') out.push({ client: c.name, text: t.text });
    }
  }
  return out;
}

const HOOK_INDEX = 4711;
const HOOKS = ['session-created', 'session-closed', 'session-renamed'];

export class Supervisor {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private dirty = false;
  private debounce: NodeJS.Timeout | null = null;
  private stopped = false;
  private resolveDone: ((code: number) => void) | null = null;
  private server: ProcessIdentity;
  private pidFile: string;
  private nudgeFile: string;
  private sigs: Record<string, string> = {};
  /** Ticks and tmux writes, for tests and the bench. */
  readonly stats = { ticks: 0, reads: 0, writes: 0 };
  /** The last tmux snapshot, with the values this supervisor has written since. */
  private last: TmuxSnapshot | null = null;
  private tmuxDirty = true;
  /** Registry files reported changed since the last tick; null: unknown, read them all. */
  private registryChanged: Set<string> | null = null;
  private readonly debug = process.env.TMUX_FLEET_DEBUG === '1';

  constructor(private readonly cfg: SupervisorConfig) {
    this.pidFile = supervisorPidFile(cfg.home, cfg.socketPath);
    this.server = processIdentity(cfg.serverPid);
    this.nudgeFile = join(runDir(cfg.home), `nudge-${serverKey(cfg.socketPath)}`);
  }

  private log(message: string): void {
    appendLog(this.cfg.home, 'supervise', message);
  }

  /** Takes the pid file of this server, or says which pid runs. */
  private async acquire(): Promise<void> {
    await mkdir(runDir(this.cfg.home), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await writeNewFile(this.pidFile, pidFileContent(), 'wx', 0o600, false);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const other = livePidFromFile(this.pidFile);
      if (other !== null) {
        throw new FleetError(`a supervisor already runs for ${this.cfg.socketPath} (pid ${other})`);
      }
      // Stale: its process is gone. Only remove it if it still says the same.
      const seen = await readFile(this.pidFile, 'utf8').catch(() => null);
      if (seen !== null && livePidFromFile(this.pidFile) === null) await unlink(this.pidFile).catch(() => undefined);
    }
    throw new FleetError(`could not take ${this.pidFile}`);
  }

  async run(once = false): Promise<number> {
    // The handler goes in before the pid file names us: SIGUSR2's default action is to terminate.
    process.on('SIGUSR2', this.onNudge);
    await this.acquire();
    try {
      if (once) {
        await this.tick();
        return 0;
      }
      await writeFile(this.nudgeFile, '', { mode: 0o600 });
      await this.installHooks();
      this.startWatches();
      process.on('SIGTERM', this.onStop);
      process.on('SIGINT', this.onStop);
      this.timer = setInterval(() => void this.poll(), this.cfg.intervalMs);
      const done = new Promise<number>((resolve) => (this.resolveDone = resolve));
      this.schedule();
      this.log(`started for ${this.cfg.socketPath} (server pid ${this.server.pid})`);
      return await done;
    } catch (err) {
      // A server killed while we start fails our first tmux calls a moment before its process is gone.
      if (await this.serverGoneWithin(1000)) {
        this.log('exiting: tmux server went away while starting');
        return 0;
      }
      throw err;
    } finally {
      await this.cleanup();
    }
  }

  private onNudge = () => this.schedule(true);
  private onStop = () => this.stop(0, 'stopped by signal');

  /** tmux hooks touch the nudge file: sessions appearing, closing or renamed change verdicts. */
  private async installHooks(): Promise<void> {
    const cmd = `run-shell -b "touch '${this.nudgeFile.replace(/'/g, '')}'"`;
    await this.cfg.tmux.chain(HOOKS.map((h) => ['set-hook', '-g', `${h}[${HOOK_INDEX}]`, cmd]));
  }

  private async removeHooks(): Promise<void> {
    await this.cfg.tmux.chain(HOOKS.map((h) => ['set-hook', '-gu', `${h}[${HOOK_INDEX}]`])).catch(() => undefined);
  }

  private startWatches(): void {
    // The registry changes what rows say, never what tmux holds: no tmux read for it.
    const dirs: [string, boolean][] = [
      [tasksDir(this.cfg.home), true],
      [this.cfg.registryDir, false],
      [runDir(this.cfg.home), true],
    ];
    for (const [dir, tmuxToo] of dirs) {
      try {
        const w = watch(dir, { persistent: true }, (_e, name) => {
          // Our own pid file changing is not news.
          if (name && String(name).startsWith('supervisor-')) return;
          if (dir === tasksDir(this.cfg.home)) this.watchTaskDirs();
          if (dir === this.cfg.registryDir) {
            if (name && this.registryChanged) this.registryChanged.add(String(name));
            else this.registryChanged = null;
          }
          this.schedule(tmuxToo);
        });
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        // The directory may not exist yet: the poll notices when it appears.
      }
    }
    this.watchTaskDirs();
  }

  private taskWatchers = new Map<string, FSWatcher>();

  /**
   * One plain watch per task directory (task.json is renamed into it on every
   * write). Not fs.watch's `recursive`: on Linux, Node 20 implements that by
   * polling every file, which alone costs more CPU than the whole supervisor.
   */
  private watchTaskDirs(): void {
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
          this.schedule(true);
        });
        w.on('error', () => undefined);
        this.taskWatchers.set(slug, w);
      } catch {
        // removed meanwhile
      }
    }
  }

  /** The slow poll: system calls only, never a process. */
  private async poll(): Promise<void> {
    if (!this.serverAlive()) {
      this.stop(0, 'tmux server went away');
      return;
    }
    let changed = false;
    let tasksChanged = false;
    for (const dir of [tasksDir(this.cfg.home), this.cfg.registryDir]) {
      const sig = await stat(dir).then(
        (s) => `${s.mtimeMs}:${s.ino}`,
        () => 'missing',
      );
      if (this.sigs[dir] !== undefined && this.sigs[dir] !== sig) {
        changed = true;
        if (dir === tasksDir(this.cfg.home)) tasksChanged = true;
        // Something the watch may have missed: read every row.
        else this.registryChanged = null;
      }
      if (this.sigs[dir] === 'missing' && sig !== 'missing') {
        this.watchers.forEach((w) => w.close());
        this.watchers = [];
        this.startWatches();
      }
      this.sigs[dir] = sig;
    }
    if (changed || this.livenessChanged()) this.schedule(tasksChanged);
  }

  private alivePids: number[] = [];
  /**
   * The processes of the last render's registry rows that existed then (as the
   * render saw them: no second check). A death changes liveness without
   * touching a file, so the poll looks for one. A dead pid coming back is a
   * reused pid, not the row's process: it is left to the next registry read.
   */
  watchPids(pidsExist: ReadonlyMap<number, boolean>): void {
    this.alivePids = [...pidsExist].filter(([, exists]) => exists).map(([pid]) => pid);
  }

  private livenessChanged(): boolean {
    const now = pidsExisting(this.alivePids);
    return this.alivePids.some((pid) => !now.get(pid));
  }

  private async serverGoneWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.serverAlive()) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  }

  private serverAlive(): boolean {
    return stillRunning(this.server);
  }

  /**
   * Asks for a tick soon. `tmuxToo`: tmux may have changed (a nudge, a tmux
   * hook, the tasks), so the tick reads tmux again; otherwise (the registry)
   * it reuses the last tmux snapshot and may need no tmux call at all.
   */
  private schedule(tmuxToo = false): void {
    if (this.stopped) return;
    if (tmuxToo) this.tmuxDirty = true;
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.tick();
    }, 30);
  }

  private async tick(): Promise<void> {
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    try {
      this.stats.ticks++;
      let snapshot = this.last;
      const registryOnly = !this.tmuxDirty && snapshot !== null;
      if (!registryOnly || snapshot === null) {
        this.tmuxDirty = false;
        snapshot = await this.read();
      }
      const registryChanged = this.registryChanged;
      this.registryChanged = new Set();
      const rendered = await this.cfg.render(snapshot, { registryOnly, registryChanged });
      // Toasts name clients: a cached client list may be stale, so read tmux afresh.
      if (rendered.toasts.length > 0 && snapshot === this.last) snapshot = await this.read();
      const changes = diffSegments(snapshot, rendered.values);
      const toasts = toastsForClients(snapshot, rendered.toasts);
      if (await applyChanges(this.cfg.tmux, changes, toasts)) this.stats.writes++;
      if (this.debug) this.log(`tick ${this.stats.ticks}: ${this.stats.reads} reads, ${changes.length} changes, ${toasts.length} toasts`);
      applyToSnapshot(snapshot, changes);
      this.last = snapshot;
    } catch (err) {
      this.last = null;
      if (!this.serverAlive()) {
        this.stop(0, 'tmux server went away');
        return;
      }
      // A session may have closed between read and write: the next wake reads tmux again.
      this.log(`tick failed: ${errorMessage(err)}`);
    } finally {
      this.running = false;
    }
    if (this.dirty) {
      this.dirty = false;
      this.schedule();
    }
  }

  private read(): Promise<TmuxSnapshot> {
    this.stats.reads++;
    return readSnapshot(this.cfg.tmux, this.cfg.formats);
  }

  stop(code: number, why: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.log(`exiting: ${why}`);
    this.resolveDone?.(code);
  }

  private async cleanup(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.watchers.forEach((w) => w.close());
    this.taskWatchers.forEach((w) => w.close());
    process.off('SIGUSR2', this.onNudge);
    process.off('SIGTERM', this.onStop);
    process.off('SIGINT', this.onStop);
    if (this.serverAlive()) await this.removeHooks();
    if (livePidFromFile(this.pidFile) === process.pid) {
      await unlink(this.pidFile).catch(() => undefined);
      await unlink(this.nudgeFile).catch(() => undefined);
    }
  }
}
