// The supervisor's loop: one per tmux server (docs/status.md#the-supervisor).
// It keeps @fleet-owner, @fleet-hop and @fleet-agent true for every session,
// so drawing the status line starts no process. What wakes it is in wakes.ts
// (file watches, session hooks, a slow poll) plus SIGUSR2 from stamp, spawn
// and takeover; each wake is one tmux read (none when only the registry
// changed), the verdicts and hops computed in memory by the render (for a
// changed row, only the sessions it touches: docs/status.md#incremental-wakes),
// and the changed options written in one tmux call (segment-writes.ts). A
// burst coalesces into one tick a second (docs/status.md#coalescing).
import { join } from 'node:path';
import { unlink, writeFile } from '../fs-async';
import { runDir } from '../context';
import { errorMessage } from '../errors';
import { appendLog } from '../log';
import { BUILT_FROM, SUPERVISOR_BUILD_OPTION } from '../build-info';
import { serverKey, supervisorPidFile } from '../nudge';
import { pidExists, processIdentity, stillRunning, type ProcessIdentity } from '../proc';
import type { Tmux } from '../tmux';
import { applyChanges } from '../tmux/apply';
import { readSnapshot, type TmuxSnapshot } from '../tmux/snapshot';
import { attentionChanges, diffSegments, HeldSegments, diffUnseenWindows, diffWindows, toastsForClients, type Render, type WindowValues } from './segment-writes';
import { acquirePidFile, releasePidFile } from './supervisor-lock';
import { Notifier, parseChannels, type NotifyWorld } from '../notify/notifier';
import { jumpHint, setOptionValue } from './snapshot-options';
import { installWakeHooks, removeWakeHooks, Wakes } from './wakes';

/**
 * The pause between a wake and its tick: the events of one write arrive
 * together (a row rewritten in place is a few events within microseconds; a
 * temp file renamed over it wakes only at the rename). A row caught
 * half-written is read again 15 ms later (registry/reader.ts).
 */
export const DEBOUNCE_MS = 1;
/**
 * Wakes closer than this count once toward BUSY_WAKES (one write, even split
 * by a loaded machine), and ticks start at least this far apart: no more
 * ticks than wakes counted.
 */
export const WAKE_GAP_MS = 30;
/**
 * Wake requests in one second (those at least WAKE_GAP_MS apart: the events
 * of one write count once) up to which each wake gets its own tick,
 * DEBOUNCE_MS later; above, ticks start at least COALESCE_MS apart, each
 * carrying every change since the last (docs/status.md#coalescing). An agent
 * changes its row a few times a second at most: a change after a quiet moment
 * shows at once, while a busy fleet costs one write a second, not one per
 * change: each write starts a tmux client, the most of a change's cost
 * (docs/budgets.md#the-status-line-and-the-supervisor).
 */
export const BUSY_WAKES = 6;
export const COALESCE_MS = 1000;

/** How long from `now` until the next tick may start, given the recent wake requests and when the last tick started. */
export function tickDelay(now: number, wakes: readonly number[], lastTickAt: number): number {
  return Math.max(DEBOUNCE_MS, lastTickAt + (busyFleet(now, wakes) ? COALESCE_MS : WAKE_GAP_MS) - now);
}

/** More than BUSY_WAKES wake requests in the last second: ticks are held COALESCE_MS apart. */
export function busyFleet(now: number, wakes: readonly number[]): boolean {
  return wakes.filter((t) => t > now - 1000).length > BUSY_WAKES;
}

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
  /** Global options whose being set the snapshot reads (src/tmux/snapshot.ts). */
  setOptions?: readonly string[];
  /** The argv that runs this helper (the command channel's FLEET_JUMP, a desktop notification's action). */
  helperArgv?: readonly string[];
  /** Which of the watched processes have gone (the render's liveness reader answers it cheaply). */
  deaths?: (pids: readonly number[]) => readonly number[];
  /** Stop the supervisor running for this server, then take its place (a new build's, docs/status.md#updates). */
  replace?: boolean;
}

export class Supervisor {
  private running = false;
  private dirty = false;
  private debounce: NodeJS.Timeout | null = null;
  private stopped = false;
  private resolveDone: ((code: number) => void) | null = null;
  private readonly server: ProcessIdentity;
  private readonly pidFile: string;
  private readonly nudgeFile: string;
  private readonly wakes: Wakes;
  /**
   * The work done since the start, as counts (tests, the debug log): wake
   * requests, ticks (renders), ticks held back (coalesced: past the debounce;
   * busy: a second, for a busy fleet), ticks due while one ran (each run after it instead), tmux reads, registry row
   * files opened, sessions whose segments were computed, options written,
   * tmux write calls (docs/status.md#incremental-wakes) and polls.
   */
  readonly stats = { wakes: 0, ticks: 0, coalesced: 0, busy: 0, deferred: 0, reads: 0, rowsRead: 0, sessions: 0, options: 0, writes: 0, polls: 0 };
  /** When the wake requests of the last second came (WAKE_GAP_MS apart at least), oldest first. */
  private readonly wakeTimes: number[] = [];
  private lastTickAt = 0;
  /** The first wake request not yet taken by a tick (the debug log tells how long it waited). */
  private firstWakeAt: number | null = null;
  /** The last tmux snapshot as read, with the values this supervisor has written since (docs/status.md#incremental-wakes). */
  private held: HeldSegments | null = null;
  private tmuxDirty = true;
  /** The window options this supervisor wrote last (job windows), to write only what changes. */
  private lastWindows: WindowValues = new Map();
  /** The unseen marks of windows this supervisor wrote last. */
  private lastUnseenWindows: ReadonlyMap<string, { session: string; value: string }> = new Map();
  /** The fleet's attention as this supervisor wrote it last (null: not yet, or a write failed: written again). */
  private lastAttention: string | null = null;
  /** Whether this run has unset the attention values sessions held of their own (segment-writes.ts: attentionChanges). */
  private ownAttentionCleared = false;
  private readonly debug = process.env.TMUX_FLEET_DEBUG === '1';
  /** The hooks that wake it when a client attaches, leaves or switches are installed: its snapshot's clients are current. */
  private clientHooks = false;
  /** Says each wake's notices beyond tmux (docs/notify.md). */
  readonly notifier: Notifier;

  constructor(private readonly cfg: SupervisorConfig) {
    this.notifier = new Notifier({ log: (m) => this.log(m), env: process.env, now: Date.now });
    this.pidFile = supervisorPidFile(cfg.home, cfg.socketPath);
    this.server = processIdentity(cfg.serverPid);
    this.nudgeFile = join(runDir(cfg.home), `nudge-${serverKey(cfg.socketPath)}`);
    this.wakes = new Wakes(
      { home: cfg.home, registryDir: cfg.registryDir, intervalMs: cfg.intervalMs },
      {
        wake: (tmuxToo, own) => this.schedule(tmuxToo, own),
        beforePoll: () => {
          this.stats.polls++;
          if (this.serverAlive()) return false;
          this.stop(0, 'tmux server went away');
          return true;
        },
        deathSeen: () => this.livenessChanged(),
      },
    );
  }

  private log(message: string): void {
    appendLog(this.cfg.home, 'supervise', message);
  }

  async run(once = false): Promise<number> {
    // The handler goes in before the pid file names us: SIGUSR2's default action is to terminate.
    process.on('SIGUSR2', this.onNudge);
    await acquirePidFile(this.cfg.home, this.pidFile, this.cfg.socketPath, this.cfg.replace, (pid) => this.log(`replaced the supervisor pid ${pid} (built from other sources)`));
    try {
      if (once) {
        await this.tick();
        return 0;
      }
      // Which build runs here, for doctor (the plugin rebuilds after an update and replaces the old supervisor).
      await this.cfg.tmux.run(['set-option', '-g', SUPERVISOR_BUILD_OPTION, `${process.pid} ${BUILT_FROM}`]);
      await writeFile(this.nudgeFile, '', { mode: 0o600 });
      this.hooksInstalled = await installWakeHooks(this.cfg.tmux, this.nudgeFile);
      if (!this.hooksInstalled) {
        this.log(`no session hooks: the path ${JSON.stringify(this.nudgeFile)} holds a character tmux would parse; new sessions are seen by the poll`);
      } else this.clientHooks = true;
      this.wakes.start();
      process.on('SIGTERM', this.onStop);
      process.on('SIGINT', this.onStop);
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
  /**
   * This process installed the session hooks: only then does it remove them
   * when it ends. A one-shot render (--once, of this home or another) installs
   * none, and must not take down those of the supervisor that runs.
   */
  private hooksInstalled = false;

  /** No tick runs and none is due: every change reported so far has been written. */
  get idle(): boolean {
    return !this.running && this.debounce === null && !this.dirty;
  }

  /** Asks for a wake that reads tmux again (after the supervisor itself changed a session, e.g. a stamp). */
  wake(): void {
    this.schedule(true);
  }
  /** Asks for a wake that reuses the last tmux snapshot (the pane proof looks again at /proc; nothing in tmux changed). */
  recheck(): void {
    this.recheckDue = true;
    this.schedule(false);
  }
  private recheckDue = false;
  private onStop = () => this.stop(0, 'stopped by signal');

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

  /** This task's file is about to be written by the supervisor itself (wakes.ts: its events are its own). */
  expectOwnTaskWrite(slug: string): void {
    this.wakes.expectOwnTaskWrite(slug);
  }

  /** The jobs the last render's live rows name: their state files are watched (wakes.ts). */
  watchJobs(jobIds: Iterable<string>): void {
    this.wakes.watchJobs(jobIds);
  }

  private livenessChanged(): readonly number[] {
    return this.cfg.deaths ? this.cfg.deaths(this.alivePids) : this.alivePids.filter((pid) => !pidExists(pid));
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
  private schedule(tmuxToo = false, own = false): void {
    if (this.stopped) return;
    if (tmuxToo) this.tmuxDirty = true;
    this.stats.wakes++;
    const now = Date.now();
    this.firstWakeAt ??= now;
    const last = this.wakeTimes[this.wakeTimes.length - 1];
    // The supervisor's own writes are no sign of a busy fleet: counted, they would hold back the next agent's change.
    if (!own && (last === undefined || now - last >= WAKE_GAP_MS)) this.wakeTimes.push(now);
    this.arm();
  }

  /** Sets the tick's timer: soon, or under load no sooner than COALESCE_MS after the last tick began. */
  private arm(): void {
    if (this.debounce || this.stopped) return;
    const now = Date.now();
    while ((this.wakeTimes[0] ?? now) <= now - 1000) this.wakeTimes.shift();
    const delay = tickDelay(now, this.wakeTimes, this.lastTickAt);
    if (delay > DEBOUNCE_MS) this.stats.coalesced++;
    if (busyFleet(now, this.wakeTimes)) this.stats.busy++;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.tick();
    }, delay);
  }

  /** The last `tick failed` line logged, until a tick succeeds. */
  private lastFailure = '';

  private async tick(): Promise<void> {
    if (this.running) {
      this.dirty = true;
      this.stats.deferred++;
      return;
    }
    this.running = true;
    this.lastTickAt = Date.now();
    const cpuAt = this.debug ? process.cpuUsage() : null;
    const waited = this.firstWakeAt === null ? 0 : this.lastTickAt - this.firstWakeAt;
    this.firstWakeAt = null;
    try {
      this.stats.ticks++;
      let held = this.held;
      const registryOnly = !this.tmuxDirty && held !== null;
      if (!registryOnly || held === null) {
        this.tmuxDirty = false;
        held = new HeldSegments(await this.read());
      }
      let snapshot = held.snapshot;
      const registryChanged = this.wakes.takeRegistryChanged();
      const recheck = this.recheckDue;
      this.recheckDue = false;
      const renderAt = Date.now();
      const rendered = await this.cfg.render(snapshot, {
        registryOnly,
        registryChanged,
        jobsChanged: this.wakes.takeJobsChanged(),
        tasksChanged: this.wakes.takeTasksChanged(),
        signalsChanged: this.wakes.takeSignalsChanged(),
        died: this.wakes.takeDeaths(),
        recheck,
      }, held);
      const writeAt = Date.now();
      const cpuRender = cpuAt ? process.cpuUsage(cpuAt) : null;
      const computed = rendered.recomputed ?? snapshot.sessions.length;
      this.stats.sessions += computed;
      this.stats.rowsRead += rendered.rowsRead ?? 0;
      // Toasts and notifications name clients: without the client hooks a cached client list may be stale, so read tmux afresh.
      if ((rendered.toasts.length > 0 || (rendered.notices?.length ?? 0) > 0) && held === this.held && !this.clientHooks) {
        held = new HeldSegments(await this.read());
        snapshot = held.snapshot;
      }
      const windows = rendered.windows ?? new Map();
      // A fresh snapshot (toasts) may differ anywhere: compared whole.
      const dirty = held === this.held ? rendered.dirty : undefined;
      // The windows that still exist matter only for windows written before.
      const unseenWindows = rendered.unseenWindows ?? new Map();
      const existing = this.lastWindows.size > 0 || this.lastUnseenWindows.size > 0 ? new Set(snapshot.panes.map((p) => p.window)) : new Set<string>();
      const changes = [
        ...diffSegments(held, rendered.values, dirty),
        ...diffWindows(this.lastWindows, windows, existing),
        ...diffUnseenWindows(this.lastUnseenWindows, unseenWindows, existing),
        ...attentionChanges(snapshot, rendered.attention, this.lastAttention, !this.ownAttentionCleared),
      ];
      const toasts = toastsForClients(snapshot, rendered.toasts);
      const applied = await applyChanges(this.cfg.tmux, changes, toasts);
      this.ownAttentionCleared = true;
      this.notifier.say(rendered.notices ?? [], this.notifyWorld(snapshot), rendered.waits ?? new Set());
      this.stats.writes += applied.calls;
      this.stats.options += changes.length;
      if (this.debug) {
        const m = process.memoryUsage();
        const mb = (n: number) => (n / 1048576).toFixed(1);
        const cpu = cpuAt ? process.cpuUsage(cpuAt) : { user: 0, system: 0 };
        this.log(`tick ${this.stats.ticks} (waited ${waited} ms, read ${renderAt - this.lastTickAt} ms, render ${writeAt - renderAt} ms, write ${Date.now() - writeAt} ms; cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms, render ${cpuRender ? ((cpuRender.user + cpuRender.system) / 1000).toFixed(1) : 0} ms): ${rendered.rowsRead ?? 0} rows read, ${computed} sessions computed, ${changes.length} options, ${toasts.length} toasts, ${applied.calls} calls (${this.stats.reads} tmux reads in all); heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB, rss ${mb(m.rss)} MB`);
      }
      this.lastFailure = '';
      if (applied.failed.length > 0) {
        // A session closed meanwhile, most likely: the others landed; read tmux afresh next time.
        this.log(`tick ${this.stats.ticks}: tmux refused ${applied.failed.length} of ${changes.length + toasts.length} writes (first: ${applied.failed[0]?.slice(0, 3).join(' ')})`);
        this.held = null;
        this.lastWindows = new Map();
        this.lastUnseenWindows = new Map();
        this.lastAttention = null;
      } else {
        held.record(changes);
        this.held = held;
        this.lastWindows = windows;
        this.lastUnseenWindows = unseenWindows;
        this.lastAttention = rendered.attention ?? this.lastAttention;
      }
    } catch (err) {
      this.held = null;
      this.lastAttention = null;
      this.wakes.forgetChanges();
      if (!this.serverAlive()) {
        this.stop(0, 'tmux server went away');
        return;
      }
      // A session may have closed between read and write: the next wake reads tmux again.
      // The same failure again (a stopped server misses every deadline) is logged once.
      const failure = `tick failed: ${errorMessage(err)}`;
      if (failure !== this.lastFailure) this.log(failure);
      this.lastFailure = failure;
    } finally {
      this.running = false;
    }
    if (this.dirty) {
      this.dirty = false;
      this.arm();
    }
  }

  private read(): Promise<TmuxSnapshot> {
    this.stats.reads++;
    return readSnapshot(this.cfg.tmux, this.cfg.formats, this.cfg.setOptions);
  }

  /** What the notifier needs of the server (docs/notify.md): its clients and panes, the channels and how to jump. */
  private notifyWorld(snapshot: TmuxSnapshot): NotifyWorld {
    const config = snapshot.config;

    const jumpArgv = this.cfg.helperArgv ? [...this.cfg.helperArgv, 'attention', '--jump', '--home', this.cfg.home, '--socket-path', this.cfg.socketPath] : [];
    let panes: Map<string, NotifyWorld['panes'] extends ReadonlyMap<string, infer P> ? P : never> | null = null;
    return {
      clients: snapshot.clients,
      // Made when a notice is said, not at every wake: a map of every pane of the fleet.
      get panes() {
        panes ??= new Map(snapshot.panes.map((p) => [p.id, { id: p.id, session: p.session, tty: p.tty, active: p.active === '1', job: p.job }]));
        return panes;
      },
      channels: parseChannels(setOptionValue(config, '@fleet-notify', 'notify')).channels,
      command: config.notifyCommand ?? '',
      jumpHint: jumpHint(setOptionValue(config, '@fleet-attention-key', 'attentionKey')),
      jumpArgv,
    };
  }

  stop(code: number, why: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.log(`exiting: ${why}`);
    this.resolveDone?.(code);
  }

  private async cleanup(): Promise<void> {
    if (this.debounce) clearTimeout(this.debounce);
    this.notifier.stop();
    this.wakes.stop();
    process.off('SIGUSR2', this.onNudge);
    process.off('SIGTERM', this.onStop);
    process.off('SIGINT', this.onStop);
    if (this.hooksInstalled && this.serverAlive()) await removeWakeHooks(this.cfg.tmux);
    if (await releasePidFile(this.pidFile)) await unlink(this.nudgeFile).catch(() => undefined);
  }
}
