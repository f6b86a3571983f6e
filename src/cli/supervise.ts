import { registryDir, type Context } from '../context';
import { FleetError } from '../errors';
import { ShellRunner, Tmux } from '../tmux';
import { appendLog } from '../log';
import { intervalMs as pollIntervalMs } from '../options';
import { DriverProcessRecorder } from '../ownership/driver-process';
import { PaneStamper } from '../ownership/pane-stamper';
import { rowJobIds } from '../registry/jobs';
import { ownerSid } from '../tasks/schema';
import { LivenessReader } from '../registry/liveness';
import { makeRender, supervisorFormats } from '../status/render';
import { withRenderCheck } from '../status/render-check';
import { SUPERVISOR_SET_OPTIONS } from '../status/snapshot-options';
import { Supervisor } from '../status/supervisor';
import type { Args } from './types';

export async function run(args: Args, ctx: Context): Promise<number> {
  return (await makeSupervisor(ctx, Boolean(args.replace))).run(Boolean(args.once));
}

/**
 * The supervisor of the server `ctx` names, wired to its render, stamper and
 * recorder; not started. `replace`: it stops the one running for that server first.
 */
export async function makeSupervisor(ctx: Context, replace = false): Promise<Supervisor> {
  const probe = new Tmux(ctx.socket);
  // One read: the server's socket path (the supervisor's identity), its pid and the poll interval.
  const head = await probe.run(['display-message', '-p', '#{socket_path}\t#{pid}\t#{@fleet-interval}']);
  const [socketPath = '', pidText = '', intervalText = ''] = head.replace(/\n$/, '').split('\t');
  if (!socketPath) throw new FleetError(`${probe.describeServer()} did not tell its socket path`);
  const intervalMs = pollIntervalMs(intervalText);
  // Each tmux client started by one small shell, not by node: node's fork of its own heap cost more than the call (docs/budgets.md).
  const shell = new ShellRunner();
  const tmux = new Tmux({ path: socketPath }, 'tmux', { runner: (bin, argv, deadlineMs) => shell.run(bin, argv, deadlineMs) });
  let supervisor: Supervisor | null = null;
  const recorder = new DriverProcessRecorder(
    ctx.home,
    (message) => appendLog(ctx.home, 'supervise', message),
    (slug) => supervisor?.expectOwnTaskWrite(slug),
  );
  const stamper = new PaneStamper(ctx, tmux, () => supervisor?.wake());
  let recheck: NodeJS.Timeout | null = null;
  /** The registry refusal last logged: one line when it starts (or changes), not one per wake. */
  let untrustedLogged = '';
  const watched: { pids: ReadonlyMap<number, boolean> | null; stampPids: number[] | null } = { pids: null, stampPids: null };
  // One liveness reader for the render and the poll's look for deaths (it keeps what /proc said).
  const liveness = new LivenessReader();
  const incremental = makeRender(
    ctx.home,
    registryDir(ctx.env),
    (data, proof, stampPids) => {
      const refusal = data.registry.untrusted ? `registry: ${data.registry.error ?? ''}` : '';
      if (refusal !== untrustedLogged && refusal !== '') appendLog(ctx.home, 'supervise', refusal);
      untrustedLogged = refusal;
      // What the poll watches changes only with the pids and jobs of the rows: a flip of a row's status leaves both.
      if (data.pidsExist && (data.pidsExist !== watched.pids || stampPids !== watched.stampPids)) {
        supervisor?.watchPids(new Map([...data.pidsExist, ...stampPids.map((pid) => [pid, true] as const)]));
        watched.pids = data.pidsExist;
        watched.stampPids = stampPids;
      }
      if (!data.changed || [...data.changed.before, ...data.changed.after.map((r) => r.row)].some((r) => r.jobId)) {
        supervisor?.watchJobs(rowJobIds(data.rows.filter((r) => r.alive)));
      }
      // Not awaited: a task write or a stamp never holds up the status line; each brings its own wake.
      const touched = data.touched;
      const tasks = touched === null ? data.tasks : data.tasks.filter((t) => t.task && touched.has(ownerSid(t.task)));
      if (tasks.length > 0) void recorder.record(tasks, data.rows);
      stamper.apply(proof.actions);
      if (proof.recheckAt !== null) {
        if (recheck) clearTimeout(recheck);
        // The proof looks again at /proc (a stamp settled, an agent still to be proven): the last tmux snapshot serves.
        recheck = setTimeout(() => supervisor?.recheck(), Math.max(0, proof.recheckAt - Date.now()) + 50);
        recheck.unref();
      }
    },
    liveness,
  );
  // Check mode (tests): every wake rendered again from nothing, each difference written down (docs/status.md#check-mode).
  const render = withRenderCheck(ctx.env, ctx.home, incremental, () => makeRender(ctx.home, registryDir(ctx.env)), intervalMs);
  supervisor = new Supervisor({
    tmux,
    home: ctx.home,
    registryDir: registryDir(ctx.env),
    socketPath,
    serverPid: Number(pidText),
    intervalMs,
    render,
    formats: supervisorFormats(),
    setOptions: SUPERVISOR_SET_OPTIONS,
    helperArgv: [process.execPath, process.argv[1] ?? ''],
    deaths: (pids) => liveness.goneAmong(pids),
    replace,
  });
  return supervisor;
}
