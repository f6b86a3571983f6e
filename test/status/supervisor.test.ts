// The supervisor on a real tmux server, read through a real attached client:
// owner / other owner / pending / hop, and the changes after a stamp, a park
// and a takeover; hostile values shown literally; one supervisor per server.
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { nudgeSupervisors, supervisorPidFile } from '../../src/nudge';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { procStartLstart } from '../../src/proc';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { attachStatusClient, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;
let supervisor: RunningSupervisor;
const clients: StatusClient[] = [];

const AGENT = `${process.execPath} ${STAND_IN}`;
/** An option as the session sees it: its own, else the global one (the fleet's attention is global). */
const opt = async (session: string, name: string) => (await server.run(['show-options', '-qvA', '-t', `=${session}:`, name])).trim();
const sidOf = async (session: string) => waitFor(async () => opt(session, '@claude_session_id'), `stamp of ${session}`, 15_000);
/** Marks a session by hand, then nudges the supervisor, as stamp, spawn and takeover do after their writes. */
const mark = async (session: string, options: Record<string, string>) => {
  await server.tmux.chain(Object.entries(options).map(([k, v]) => ['set-option', '-t', `=${session}:`, k, v]));
  nudgeSupervisors(fenv.home, supervisor.socketPath);
};
const type = async (session: string, text: string) => {
  await server.run(['send-keys', '-t', `=${session}:`, '-l', text]);
  await server.run(['send-keys', '-t', `=${session}:`, 'Enter']);
};
const fleet = (args: string[], env: Record<string, string> = {}) => runFleet(args, { env: { ...fenv.env, ...env } });

async function watch(session: string): Promise<StatusClient> {
  const c = await attachStatusClient(server, session, 200);
  clients.push(c);
  return c;
}

/** Polls the status line; reports how long the change took (logged, never asserted: machines are noisy). */
async function seen(c: StatusClient, text: string, what: string): Promise<void> {
  const t0 = Date.now();
  await c.waitForStatus(text, 15_000);
  console.log(`status: ${what} shown after ${Date.now() - t0} ms`);
}

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  await server.tmux.chain([
    ['set-option', '-g', 'status-left', '[#{@fleet-owner}][#{@fleet-hop}][#{@fleet-agent}]'],
    ['set-option', '-g', 'status-left-length', '180'],
    ['set-option', '-g', 'status-right', ''],
    ['set-option', '-g', 'display-time', '3000'],
  ]);
  supervisor = await startSupervisor(server, fenv);
});

afterAll(async () => {
  for (const c of clients) await c.kill();
  await supervisor?.stop().catch(() => undefined);
  await server?.kill();
  await fenv?.cleanup();
});

describe('status segments on an attached client', () => {
  it('shows owner after the Driver stamps, and pending while it boots', async () => {
    expect((await fleet(['spawn', 'alpha', '--cmd', AGENT])).exitCode).toBe(0);
    const c = await watch('op-alpha');
    await seen(c, 'owner alpha', 'owner after stamp');
    expect(await c.statusLine()).toMatch(/\[ ● owner alpha \]\[\]\[ ⚙ busy \]/);

    // Booting: nothing under the pane has stamped or written a row yet. (An agent without the
    // hook would be proven by its row at once, docs/ownership.md#the-stamp-without-the-hook.)
    expect((await fleet(['spawn', 'booting', '--cmd', 'sleep 600'])).exitCode).toBe(0);
    const b = await watch('op-booting');
    await seen(b, '◌ booting pending', 'pending');
  });

  it('names the other owner by its tmux session on a second session bound to the same task, then flips on a takeover', async () => {
    const owner = await sidOf('op-alpha');
    await server.newSession('intruder', ['sh', '-c', AGENT], { TMUX_FLEET_TASK: 'alpha' });
    await mark('intruder', { '@fleet-task': 'alpha' });
    const intruderSid = await sidOf('intruder');
    const c = await watch('intruder');
    await seen(c, `▲ alpha: owner op-alpha (${owner.slice(0, 8)}) live`, 'other owner');
    // prefix O's line (the owner command) names the session too.
    const line = await fleet(['owner', 'alpha', '--as', intruderSid]);
    expect(line.exitCode).toBe(9);
    expect(line.stdout).toContain(`9 other ${owner} live (task alpha: Driver: op-alpha (${owner.slice(0, 8)}), live; to take over on purpose`);
    expect(JSON.parse((await fleet(['owner', 'alpha', '--as', intruderSid, '--json'])).stdout)).toMatchObject({ owner, ownerSession: 'op-alpha' });

    const t = await fleet(['takeover', 'alpha', '--as', intruderSid, '--force']);
    expect(t.exitCode).toBe(0);
    await seen(c, '● owner alpha', 'owner after takeover');
    const a = clients[0]!;
    await seen(a, `▲ alpha: owner intruder (${intruderSid.slice(0, 8)}) live`, 'other owner on the old Driver');
  });

  it('shows the owner gone when its process dies and no file or session changes (the poll notices)', async () => {
    // An owner whose row names a plain sleep: killing it changes no file and no tmux session.
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    const pid = sleeper.pid!;
    await waitFor(() => procStartLstart(pid), 'sleep started');
    const ghost = 'ghost000-0000-4000-8000-000000000001';
    const row = join(fenv.registry, `${pid}.json`);
    await writeFile(row, JSON.stringify({ pid, sessionId: ghost, kind: 'interactive', status: 'idle', procStart: procStartLstart(pid), updatedAt: Date.now() }));
    const dir = join(fenv.home, 'tasks', 'ghosted');
    await mkdir(dir, { recursive: true });
    const now = new Date().toISOString();
    await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'ghosted', createdAt: now, updatedAt: now, driverSid: ghost, driverPane: 'gone-pane' }));
    await server.newSession('watcher');
    await mark('watcher', { '@fleet-task': 'ghosted' });
    const c = await watch('watcher');
    await seen(c, '▲ ghosted: owner ghost000 live', 'other owner, live');
    const before = (await stat(row)).mtimeMs;
    sleeper.kill('SIGKILL');
    await seen(c, '▲ ghosted: owner ghost000 gone', 'owner gone after its process died');
    expect((await stat(row)).mtimeMs).toBe(before);
  });

  it('follows a park to the job and back, with toasts, and shows the job waiting', async () => {
    const c = clients[0]!;
    const base = (await sidOf('op-alpha')).slice(0, 4);
    await type('op-alpha', '/park e9e4ae8e waiting permission prompt');
    await seen(c, `fleet: ${base} parked its work on background job e9e4ae8e, following`, 'park toast');
    await seen(c, `[ ↪ ${base} → e9e4 ]`, 'hop segment');
    await seen(c, '[ ! waiting: permission prompt ]', 'the job waiting');
    await type('op-alpha', '/unpark');
    await seen(c, `fleet: work came back to ${base}`, 'back toast');
    await seen(c, '][][ ⚙ busy ]', 'hop segment gone');
  });

  it('the work comes back while its job, still waiting, has not yet ended: the back toast shows, and the job is no new wait', async () => {
    // A session bound to a task another session owns (one that lost a takeover), its work parked on a job
    // that waits for a permission. The tab's row comes back before the job's row goes (a loaded machine).
    const tabSid = '5ab1e000-0000-4000-8000-000000000001';
    const jobSid = '7e57ab1e-0000-4000-8000-000000000002';
    const dir = join(fenv.home, 'tasks', 'lent');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const now = new Date().toISOString();
    await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'lent', createdAt: now, updatedAt: now, driverSid: 'e1sewhere-0000-4000-8000-000000000003', driverPane: 'gone' }), { mode: 0o600 });
    await server.newSession('lent-tab', ['sleep', '86400']);
    await mark('lent-tab', { '@fleet-task': 'lent', '@claude_session_id': tabSid });
    const tab = execa('sleep', ['86400'], { reject: false });
    const job = execa('sleep', ['86400'], { reject: false });
    const tabRow = join(fenv.registry, `${tab.pid}.json`);
    const jobRow = join(fenv.registry, `${job.pid}.json`);
    try {
      await waitFor(async () => (await opt('lent-tab', '@fleet-attention')) === '', 'nobody waits yet', 15_000);
      await writeFile(jobRow, JSON.stringify({ pid: job.pid, sessionId: jobSid, kind: 'bg', status: 'waiting', waitingFor: 'permission prompt', jobId: '7e57ab1e' }));
      await writeFile(tabRow, JSON.stringify({ pid: tab.pid, sessionId: tabSid, kind: 'interactive', status: 'idle', parkedJobId: '7e57ab1e' }));
      const c = await watch('lent-tab');
      await seen(c, '[ ↪ 5ab1 → 7e57 ]', 'hop segment');
      await seen(c, '[ ! waiting: permission prompt ]', 'the job waiting');
      // Its wait counts in the fleet's attention, as any Driver's would.
      await waitFor(async () => (await opt('lent-tab', '@fleet-attention')) !== '', 'attention counts the job', 15_000);
      await writeFile(tabRow, JSON.stringify({ pid: tab.pid, sessionId: tabSid, kind: 'interactive', status: 'busy' }));
      const line = await c.waitForStatus('fleet: work came back to 5ab1', 15_000);
      expect(line).not.toContain('waits');
      await seen(c, '][][ ⚙ busy ]', 'hop segment gone');
    } finally {
      tab.kill();
      job.kill();
      await rm(tabRow, { force: true });
      await rm(jobRow, { force: true });
    }
  });

  it('shows hostile registry values literally and runs nothing', async () => {
    const marker = join(fenv.root, 'pwned');
    await server.newSession('hostile', ['sleep', '86400']);
    const sid = 'hostile-0000-4000-8000-000000000001';
    await mark('hostile', { '@claude_session_id': sid });
    const evil = `#(touch ${marker})#[fg=red]`;
    await writeFile(
      join(fenv.registry, `${process.pid}.json`),
      JSON.stringify({ pid: process.pid, sessionId: sid, kind: 'interactive', status: 'waiting', waitingFor: evil, parkedJobId: '0badf00d' }),
    );
    const c = await watch('hostile');
    await seen(c, `waiting: #(touch ${marker})#[fg=red]`, 'hostile text');
    // Nothing ran it: neither the supervisor, through its next ticks, nor tmux, through the status line's jobs.
    await supervisor.ticks();
    await c.statusJobsRan();
    expect(existsSync(marker)).toBe(false);
    expect(await opt('hostile', '@fleet-agent')).toContain(`##(touch ${marker})##[fg=red]`);
  });
});

describe('hostile ids in files the user or an agent wrote', () => {
  it('shows a hostile owner id from task.json literally and runs nothing', async () => {
    const marker = join(fenv.root, 'pwned-owner');
    const evil = `#(touch ${marker})#[fg=red]x`;
    const dir = join(fenv.home, 'tasks', 'evil');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'evil', driverSid: evil, label: `#(touch ${marker}) #[bg=red]` }), { mode: 0o600 });
    await server.newSession('bystander', ['sleep', '86400']);
    await mark('bystander', { '@fleet-task': 'evil', '@claude_session_id': 'bystander-0000-4000-8000-000000000002' });
    const c = await watch('bystander');
    // An id that is no UUID is shown whole, up to 24 characters.
    await seen(c, `▲ evil: owner ${`#(touch ${marker}`.slice(0, 23)}… gone`, 'hostile owner id');
    expect(await opt('bystander', '@fleet-owner')).toContain('##(touch');
    const tasks = await fleet(['tasks']);
    expect(tasks.stdout).toMatch(/evil\s+#\(touch\s/);
    await supervisor.ticks();
    await c.statusJobsRan();
    expect(existsSync(marker)).toBe(false);
  });

  it('shows a hostile session id and job id of the registry literally in the hop segment', async () => {
    const marker = join(fenv.root, 'pwned-hop');
    const tab = `#(touch ${marker})-tab`;
    await server.newSession('hostile-hop', ['sleep', '86400']);
    await mark('hostile-hop', { '@claude_session_id': tab });
    const sleeper = execa('sleep', ['86400'], { reject: false });
    try {
      await writeFile(join(fenv.registry, `${sleeper.pid}.json`), JSON.stringify({ pid: sleeper.pid, sessionId: '#[fg=red]#(job', kind: 'bg', status: 'busy', jobId: '0badf00d' }));
      await writeFile(join(fenv.registry, `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: tab, kind: 'interactive', status: 'idle', parkedJobId: '0badf00d' }));
      const c = await watch('hostile-hop');
      await seen(c, `↪ ${tab.slice(0, 23)}… → #[fg=red]#(job`, 'hostile hop');
      await supervisor.ticks();
      await c.statusJobsRan();
      expect(existsSync(marker)).toBe(false);
    } finally {
      sleeper.kill();
    }
  });
});

describe('one supervisor per server', () => {
  it('refuses a second supervisor for the same server, naming the pid that runs', async () => {
    const r = await execa(process.execPath, [FLEET_BIN, 'supervise', '--socket-path', supervisor.socketPath], {
      env: { ...process.env, TMUX: undefined, ...fenv.env },
      extendEnv: false,
      reject: false,
      timeout: 15_000,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`a supervisor already runs for ${supervisor.socketPath} (pid ${supervisor.pid})`);
  });

  it("a one-shot render (--once) for another fleet home leaves the running supervisor's session hooks in place", async () => {
    const hooks = async () => (await server.run(['show-hooks', '-g'])).split('\n').filter((l) => l.includes('[4711]'));
    const before = await hooks();
    expect(before.length).toBeGreaterThanOrEqual(5);
    const other = await makeFleetEnv(server.name);
    try {
      const r = await execa(process.execPath, [FLEET_BIN, 'supervise', '--once', '--home', other.home, '--socket-path', supervisor.socketPath], {
        env: { ...process.env, TMUX: undefined, ...other.env },
        extendEnv: false,
        reject: false,
        timeout: 15_000,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(await hooks()).toEqual(before);
    } finally {
      await other.cleanup();
    }
  });

  it('draws the default icon and style of an unset option (nothing written by the plugin), and none for a single space', async () => {
    const other = await startServer();
    const env2 = await makeFleetEnv(other.name);
    try {
      await other.run(['set-option', '-g', 'status-left', '[#{@fleet-owner}]']);
      await other.run(['set-option', '-g', 'status-left-length', '100']);
      await other.newSession('plain', ['sleep', '86400']);
      await other.run(['set-option', '-t', '=plain:', '@fleet-task', 'nothing-here']);
      await other.run(['set-option', '-t', '=plain:', '@claude_session_id', 'plain-0000-4000-8000-000000000003']);
      const sup = await startSupervisor(other, env2);
      const owner = async () => (await other.run(['show-options', '-qv', '-t', '=plain:', '@fleet-owner'])).trim();
      await waitFor(async () => (await owner()) === '#[fg=white,bg=magenta] ? nothing-here cannot tell #[default]', 'owner segment with the defaults');
      await other.tmux.chain([
        ['set-option', '-g', '@fleet-icon-unknown', ' '],
        ['set-option', '-g', '@fleet-style-unknown', ' '],
      ]);
      await sup.stop();
      const again = await startSupervisor(other, env2);
      await waitFor(async () => (await owner()) === 'nothing-here cannot tell', 'plain owner segment');
      await again.stop();
    } finally {
      await other.kill();
      await env2.cleanup();
    }
  });

  it('--replace (a new build after an update): the running supervisor is stopped and the new one takes its place, saying which build it is', async () => {
    const other = await startServer();
    const env2 = await makeFleetEnv(other.name);
    try {
      const old = await startSupervisor(other, env2);
      const build = async () => (await other.run(['show-options', '-gqv', '@fleet-supervisor-build'])).trim();
      await waitFor(async () => (await build()).startsWith(`${old.pid} `), 'the old supervisor says its build');
      const pidFile = supervisorPidFile(env2.home, old.socketPath);
      const fresh = execa(process.execPath, [FLEET_BIN, 'supervise', '--replace', '--socket-path', old.socketPath], {
        env: { ...process.env, TMUX: undefined, ...env2.env },
        extendEnv: false,
        reject: false,
      });
      try {
        expect((await old.proc).exitCode).toBe(0);
        await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).startsWith(`${fresh.pid} `), 'the new supervisor holds the pid file');
        await waitFor(async () => (await build()).startsWith(`${fresh.pid} `), 'the new supervisor says its build');
        // `<pid> <version> <cksum of the build's inputs>`, as dist/built-from says.
        expect(await build()).toBe(`${fresh.pid} ${(await readFile(join(FLEET_BIN, '..', 'built-from'), 'utf8')).trim()}`);
        expect(await readFile(join(env2.home, 'log'), 'utf8')).toContain(`replaced the supervisor pid ${old.pid}`);
      } finally {
        fresh.kill('SIGTERM');
        await fresh;
      }
    } finally {
      await other.kill();
      await env2.cleanup();
    }
  });

  it('exits when its server goes away', async () => {
    const other = await startServer();
    const env2 = await makeFleetEnv(other.name);
    const sup = await startSupervisor(other, env2);
    await other.kill();
    const result = await sup.proc;
    expect(result.exitCode).toBe(0);
    await env2.cleanup();
  });
});
