// Starts `tmux-fleet supervise` for a test server, the way the plugin does,
// and waits for its ticks: a check that something did not happen waits for
// the ticks that would have done it, never for a fixed time.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { supervisorPidFile } from '../../src/nudge';
import { type FleetEnv, waitFor } from './env';
import { cleanEnv } from './hermetic';
import { FLEET_BIN } from './paths';
import type { TestServer } from './tmux-server';

/**
 * The supervisor's options as a named type: relating execa's result for these
 * options to the default ResultPromise costs tsc over ten seconds.
 */
type SuperviseOptions = { env: Record<string, string | undefined>; extendEnv: false; reject: false; all: true };

export interface RunningSupervisor {
  proc: ResultPromise<SuperviseOptions>;
  pid: number;
  socketPath: string;
  output(): string;
  /** Waits for `count` ticks that begin after the call (ticksAfter). */
  ticks(count?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The ticks the supervisor of `pid` finished, from <home>/log: under
 * TMUX_FLEET_DEBUG=1 it logs `tick N (...): <what it did>` at the end of each.
 */
export function ticksLogged(home: string, pid: number): { tick: number; line: string }[] {
  let text = '';
  try {
    text = readFileSync(join(home, 'log'), 'utf8');
  } catch {
    return [];
  }
  return [...text.matchAll(new RegExp(`supervise\\[${pid}\\]: tick (\\d+) \\(.*`, 'g'))].map((m) => ({ tick: Number(m[1]), line: m[0] }));
}

/** The number of the last tick the supervisor of `pid` finished (0: none yet). */
export function lastTickLogged(home: string, pid: number): number {
  return ticksLogged(home, pid).reduce((last, t) => Math.max(last, t.tick), 0);
}

/**
 * Waits until the supervisor of `pid` (started with TMUX_FLEET_DEBUG=1) has
 * finished `count` ticks that began after this call, nudging it (SIGUSR2, as
 * spawn and stamp do) for each. A tick running at the call began before it:
 * with N the last tick logged then, tick N+1 may be that one, and N+2 on are
 * not. So what was true when this was called has been read and written, and
 * with count 2 what the first of them set off (a stamp it wrote, which wakes
 * it) has had a tick of its own. For a check that something did not happen:
 * it cannot pass because the work ran late.
 */
export async function ticksAfter(home: string, pid: number, count = 2): Promise<void> {
  const from = lastTickLogged(home, pid);
  for (let k = 1; k <= count + 1; k++) {
    process.kill(pid, 'SIGUSR2');
    await waitFor(() => lastTickLogged(home, pid) >= from + k, `tick ${from + k} of the supervisor (pid ${pid})`, 30_000, 20);
  }
}

export async function socketPathOf(server: TestServer): Promise<string> {
  return (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
}

export async function startSupervisor(server: TestServer, fenv: FleetEnv): Promise<RunningSupervisor> {
  const socketPath = await socketPathOf(server);
  let out = '';
  // TMUX_FLEET_DEBUG=1: it logs each tick, which ticks() counts.
  const options: SuperviseOptions = { env: { ...cleanEnv(), ...fenv.env, TMUX_FLEET_DEBUG: '1' }, extendEnv: false, reject: false, all: true };
  const proc = execa(process.execPath, [FLEET_BIN, 'supervise', '--socket-path', socketPath], options);
  proc.all?.on('data', (b: Buffer) => (out += b.toString()));
  const pidFile = supervisorPidFile(fenv.home, socketPath);
  await waitFor(() => existsSync(pidFile), `supervisor pid file ${pidFile}`, 15_000);
  return {
    proc,
    pid: proc.pid ?? 0,
    socketPath,
    output: () => out,
    ticks: (count) => ticksAfter(fenv.home, proc.pid ?? 0, count),
    async stop() {
      proc.kill('SIGTERM');
      await proc;
    },
  };
}

/** Exports the fleet environment into the server, so panes (agents, their hooks) see the test's home and registry. */
export async function exportFleetEnv(server: TestServer, fenv: FleetEnv): Promise<void> {
  await server.tmux.chain(Object.entries(fenv.env).map(([k, v]) => ['set-environment', '-g', k, v]));
}
