// The live loop of `tmux-fleet follow --watch` over every stamped session of
// one tmux server: on each change the supervisor would wake for (the same
// watches: src/status/wakes.ts), one snapshot read of the server and a
// re-follow of every stamped session (HopTracker, shared with the
// supervisor). It reports and writes nothing: the status options and the
// toasts have one writer, the supervisor (docs/status.md#the-supervisor).
import { intervalMs as pollIntervalMs } from '../options';
import { processIdentity, stillRunning } from '../proc';
import { HopTracker, type HopEvent, type HopUpdate } from '../registry/hop';
import { attachJobStates, rowJobIds } from '../registry/jobs';
import { liveRows } from '../registry/liveness';
import { readRegistry } from '../registry/reader';
import type { Tmux } from '../tmux/client';
import { readSnapshot, type TmuxSnapshot } from '../tmux/snapshot';
import { Wakes } from './wakes';

export interface LiveFollowOptions {
  tmux: Tmux;
  /** The fleet home (its task, signal and run directories are watched as the supervisor watches them). */
  home: string;
  registry: string;
  /** Poll interval (ms) when file watches miss; default: @fleet-interval seconds, else its default. */
  intervalMs?: number;
  /** After every refresh (first included). */
  onUpdate?: (u: HopUpdate, first: boolean) => void;
  onEvent?: (e: HopEvent) => void;
  /** Refresh failures that do not end the loop. */
  onError?: (err: unknown) => void;
  signal?: AbortSignal;
}

/** Runs until the tmux server goes away or the signal aborts. Resolves with why it ended. */
export async function followLive(opts: LiveFollowOptions): Promise<'server-gone' | 'aborted'> {
  const { tmux } = opts;
  const head = await tmux.run(['display-message', '-p', '#{pid}\t#{@fleet-interval}']);
  const [pidText = '', intervalText = ''] = head.replace(/\n$/, '').split('\t');
  const serverPid = Number(pidText);
  const server = processIdentity(serverPid);
  // The server's socket file outlives it; its process does not (start time guards a reused pid).
  const serverAlive = () =>
    !Number.isInteger(serverPid) || serverPid <= 0 || stillRunning(server);
  const intervalMs = opts.intervalMs ?? pollIntervalMs(intervalText);
  const tracker = new HopTracker();

  return new Promise((resolve) => {
    let done = false;
    let running = false;
    let again = false;
    let first = true;

    const finish = (why: 'server-gone' | 'aborted') => {
      if (done) return;
      done = true;
      wakes.stop();
      clearInterval(alive);
      process.removeListener('SIGUSR1', refresh);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(why);
    };

    async function once(): Promise<void> {
      let snap: TmuxSnapshot;
      try {
        snap = await readSnapshot(tmux);
      } catch (err) {
        if (!(await tmux.serverRunning())) return finish('server-gone');
        throw err;
      }
      // Every row is read each time: what the watches named is not kept.
      wakes.forgetChanges();
      wakes.takeJobsChanged();
      wakes.takeDeaths();
      const registry = await readRegistry(opts.registry);
      const live = await liveRows(registry);
      if (done) return;
      // A job's state file changes what it needs without its row changing: watched as the supervisor watches it.
      wakes.watchJobs(rowJobIds(live.filter((r) => r.alive)));
      const rows = attachJobStates(live, opts.registry);
      const stamps = snap.sessions.filter((s) => s.stamp !== '').map((s) => [s.name, s.stamp] as const);
      const update = tracker.update(stamps, rows);
      opts.onUpdate?.(update, first);
      first = false;
      for (const e of update.events) opts.onEvent?.(e);
    }

    function refresh(): void {
      if (done) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      once()
        .catch((err) => opts.onError?.(err))
        .finally(() => {
          running = false;
          if (again && !done) {
            again = false;
            refresh();
          }
        });
    }

    const onAbort = () => finish('aborted');
    const wakes = new Wakes(
      { home: opts.home, registryDir: opts.registry, intervalMs },
      {
        wake: () => refresh(),
        beforePoll: () => done,
        deathSeen: () => [],
      },
    );
    wakes.start();
    // Is the server still there: kill(pid, 0), no process started.
    const alive = setInterval(() => {
      if (!serverAlive()) finish('server-gone');
    }, Math.min(intervalMs, 1000));
    process.on('SIGUSR1', refresh);
    if (opts.signal?.aborted) return finish('aborted');
    opts.signal?.addEventListener('abort', onAbort);
    refresh();
  });
}
