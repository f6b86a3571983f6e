// The live loop of `tmux-fleet follow --watch` over every stamped session of
// one tmux server: on each registry change, one snapshot read of the server
// and a re-follow of every stamped session (HopTracker, shared with the
// supervisor). It reports and writes nothing: the status options and the
// toasts have one writer, the supervisor (docs/status.md#the-supervisor).
import { intervalMs as pollIntervalMs } from '../options';
import { processIdentity, stillRunning } from '../proc';
import type { Tmux } from '../tmux/client';
import { readSnapshot, type TmuxSnapshot } from '../tmux/snapshot';
import { HopTracker, type HopEvent, type HopUpdate } from './hop';
import { attachJobStates } from './jobs';
import { liveRows } from './liveness';
import { ROW_FILE_RE, readRegistry } from './reader';
import { watchDir } from './watch';

export interface LiveFollowOptions {
  tmux: Tmux;
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
      watcher.close();
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
      const registry = await readRegistry(opts.registry);
      const rows = attachJobStates(await liveRows(registry), opts.registry);
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
    const watcher = watchDir(opts.registry, refresh, { intervalMs, filter: (n) => ROW_FILE_RE.test(n) });
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
