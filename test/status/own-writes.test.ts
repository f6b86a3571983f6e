// The supervisor's own task writes (docs/status.md#coalescing): at its first
// wake it records the Driver's process of every task whose owner's row has
// appeared, one task file each. Those writes wake it (it reads them back), but
// they are no sign of a busy fleet: counted as wakes, a few dozen of them
// pushed it into coalescing, and the next change an agent made waited up to a
// second. A real supervisor in this process (its counters read), a real tmux
// server, many tasks to record at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSupervisor } from '../../src/cli/supervise';
import type { Context } from '../../src/context';
import { procStartTicks } from '../../src/proc';
import { BUSY_WAKES, type Supervisor } from '../../src/status/supervisor';
import { makeFleetEnv, waitFor, type FleetEnv } from '../helpers/env';
import { startServer, type TestServer } from '../helpers/tmux-server';

/** Enough tasks that their writes span several wake gaps: far more than BUSY_WAKES counted wakes, were they counted. */
const TASKS = 120;
const sid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const name = (i: number) => `o${String(i).padStart(3, '0')}`;

let server: TestServer;
let fenv: FleetEnv;
const sleepers: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  const now = Date.now();
  for (let i = 0; i < TASKS; i++) {
    // A process of its own per Driver (a row's pid must be a live process; the pane's would do as well).
    const child = spawn('sleep', ['86400'], { stdio: 'ignore' });
    sleepers.push(child);
    const pid = child.pid as number;
    const slug = `own-${i}`;
    await mkdir(join(fenv.home, 'tasks', slug), { recursive: true, mode: 0o700 });
    const at = new Date(now).toISOString();
    await writeFile(join(fenv.home, 'tasks', slug, 'task.json'), JSON.stringify({ slug, createdAt: at, updatedAt: at, driverSid: sid(i + 1), driverPane: name(i) }), { mode: 0o600 });
    await writeFile(join(fenv.registry, `${pid}.json`), JSON.stringify({ pid, sessionId: sid(i + 1), cwd: `/work/${slug}`, startedAt: now, procStart: String(procStartTicks(pid)), kind: 'interactive', status: 'idle', updatedAt: now }));
  }
}, 60_000);

afterAll(async () => {
  for (const c of sleepers) c.kill('SIGKILL');
  await server?.kill();
  await fenv?.cleanup();
});

const context = (): Context => ({ home: fenv.home, socket: { name: server.name }, json: false, env: { ...fenv.env } });
const recorded = async (i: number) => JSON.parse(await readFile(join(fenv.home, 'tasks', `own-${i}`, 'task.json'), 'utf8')).driverPid as number | undefined;

describe("the supervisor's own task writes", () => {
  let sup: Supervisor;
  let done: Promise<number>;
  afterAll(async () => {
    sup?.stop(0, 'test over');
    await done;
  });

  it('recorded at once for every task, read back, and never taken for a busy fleet', async () => {
    sup = await makeSupervisor(context());
    done = sup.run();
    await waitFor(async () => (await recorded(TASKS - 1)) !== undefined && (await recorded(0)) !== undefined, 'the Drivers recorded', 60_000);
    // Every write's events reached the supervisor and it went quiet after them.
    await waitFor(() => sup.idle && sup.stats.ticks >= 2, 'the supervisor idle after its writes', 30_000);
    const ticks = sup.stats.ticks;
    await waitFor(() => sup.stats.polls >= 2 && sup.idle, 'two polls', 30_000);
    for (let i = 0; i < TASKS; i += 17) expect(await recorded(i), `task own-${i}`).toBe(sleepers[i]?.pid);
    // Each write woke it (the tasks are read back), as its own: none made a tick wait for a busy fleet's second.
    expect(sup.stats.wakes).toBeGreaterThan(BUSY_WAKES);
    expect(sup.stats.busy).toBe(0);
    // And none asked for a tmux read: the writes touch no session.
    expect(sup.stats.reads).toBeLessThanOrEqual(2);
    expect(sup.stats.ticks).toBeGreaterThanOrEqual(ticks);
  }, 120_000);
});
