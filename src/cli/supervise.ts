import { registryDir, type Context } from '../context';
import { FleetError } from '../errors';
import { Tmux } from '../tmux';
import { appendLog } from '../log';
import { DriverProcessRecorder } from '../ownership/driver-process';
import { makeRender, supervisorFormats } from '../status/render';
import { Supervisor } from '../status/supervisor';
import type { Args } from './types';

export async function run(args: Args, ctx: Context): Promise<number> {
  const probe = new Tmux(ctx.socket);
  // One read: the server's socket path (the supervisor's identity), its pid and the poll interval.
  const head = await probe.run(['display-message', '-p', '#{socket_path}\t#{pid}\t#{@fleet-interval}']);
  const [socketPath = '', pidText = '', intervalText = ''] = head.replace(/\n$/, '').split('\t');
  if (!socketPath) throw new FleetError(`${probe.describeServer()} did not tell its socket path`);
  const seconds = Number(intervalText);
  const intervalMs = Number.isFinite(seconds) && seconds > 0 ? Math.max(250, seconds * 1000) : 2000;
  const tmux = new Tmux({ path: socketPath });
  let supervisor: Supervisor | null = null;
  const recorder = new DriverProcessRecorder(ctx.home, (message) => appendLog(ctx.home, 'supervise', message));
  const render = makeRender(ctx.home, registryDir(ctx.env), (data) => {
    if (data.pidsExist) supervisor?.watchPids(data.pidsExist);
    // Not awaited: a task write never holds up the status line; its own watch brings the next wake.
    void recorder.record(data.tasks, data.rows);
  });
  supervisor = new Supervisor({
    tmux,
    home: ctx.home,
    registryDir: registryDir(ctx.env),
    socketPath,
    serverPid: Number(pidText),
    intervalMs,
    render,
    formats: supervisorFormats(),
  });
  return supervisor.run(Boolean(args.once));
}
