// Starts `tmux-fleet supervise` for a test server, the way the plugin does.
import { existsSync } from 'node:fs';
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
  stop(): Promise<void>;
}

export async function socketPathOf(server: TestServer): Promise<string> {
  return (await server.run(['display-message', '-p', '#{socket_path}'])).trim();
}

export async function startSupervisor(server: TestServer, fenv: FleetEnv): Promise<RunningSupervisor> {
  const socketPath = await socketPathOf(server);
  let out = '';
  const options: SuperviseOptions = { env: { ...cleanEnv(), ...fenv.env }, extendEnv: false, reject: false, all: true };
  const proc = execa(process.execPath, [FLEET_BIN, 'supervise', '--socket-path', socketPath], options);
  proc.all?.on('data', (b: Buffer) => (out += b.toString()));
  const pidFile = supervisorPidFile(fenv.home, socketPath);
  await waitFor(() => existsSync(pidFile), `supervisor pid file ${pidFile}`, 15_000);
  return {
    proc,
    pid: proc.pid ?? 0,
    socketPath,
    output: () => out,
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
