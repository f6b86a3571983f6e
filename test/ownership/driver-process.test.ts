// The Driver's process recorded late: the pure rule, then the supervisor
// filling it when the owner's registry row appears after the stamp.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLateProcess, withParkedJob } from '../../src/ownership/driver-process';
import { procStartLstart } from '../../src/proc';
import type { LiveRow } from '../../src/registry/liveness';
import type { Task } from '../../src/tasks/schema';
import { makeFleetEnv, waitFor, type FleetEnv } from '../helpers/env';
import { startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { startServer, type TestServer } from '../helpers/tmux-server';

const OWNER = 'owner-aaaa-0000-4000-8000-000000000001';
const decided: Task = { slug: 't', driverSid: OWNER, driverPane: 'op-t', keepMe: { x: 1 } } as Task;
const row = (over: Partial<LiveRow['row']> = {}, alive = true): LiveRow => ({
  row: { pid: 4242, sessionId: OWNER, procStart: 'Mon Nov 30  04:05:06 2026', ...over } as LiveRow['row'],
  alive,
  liveness: alive ? 'live' : 'gone',
});

describe('withLateProcess', () => {
  it.each<[string, Task | null, LiveRow, boolean]>([
    ['no task', null, row(), false],
    ['a task that has its process already', { ...decided, driverPid: 7, driverProcStart: 'x' }, row(), false],
    ['a pending task (no owner yet)', { ...decided, driverSid: '' }, row(), false],
    ["another session's row", decided, row({ sessionId: 'someone-else' }), false],
    ['a dead row', decided, row({}, false), false],
    ['a row without procStart (no proof for a later /clear)', decided, row({ procStart: undefined }), false],
    ["the owner's live row", decided, row(), true],
  ])('%s', (_label, task, r, fills) => {
    const next = withLateProcess(task, r);
    if (!fills) {
      expect(next).toBeNull();
      return;
    }
    expect(next).toMatchObject({ driverSid: OWNER, driverPid: 4242, driverProcStart: 'Mon Nov 30 04:05:06 2026', keepMe: { x: 1 } });
  });
});

describe('withParkedJob', () => {
  const withPid = { ...decided, driverPid: 4242, driverProcStart: '1' } as Task;
  it.each<[string, Task | null, LiveRow, string | null | 'unchanged']>([
    ['no task', null, row({ parkedJobId: 'cad206e7' }), 'unchanged'],
    ['the tab parks: the job is recorded', withPid, row({ parkedJobId: 'cad206e7' }), 'cad206e7'],
    ['still parked on the same job: nothing to write', { ...withPid, driverJobId: 'cad206e7' } as Task, row({ parkedJobId: 'cad206e7' }), 'unchanged'],
    ['the work came back: the record goes', { ...withPid, driverJobId: 'cad206e7' } as Task, row(), null],
    ['not parked, nothing recorded: nothing to write', withPid, row(), 'unchanged'],
    ["another session's row", withPid, row({ sessionId: 'someone-else', parkedJobId: 'x' }), 'unchanged'],
    ['a dead row says nothing', withPid, row({ parkedJobId: 'cad206e7' }, false), 'unchanged'],
  ])('%s', (_label, task, r, want) => {
    const next = withParkedJob(task, r);
    if (want === 'unchanged') expect(next).toBeNull();
    else expect(next?.driverJobId ?? null).toBe(want);
  });
});

describe('the supervisor records it', () => {
  let server: TestServer;
  let fenv: FleetEnv;
  let supervisor: RunningSupervisor;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startServer();
    fenv = await makeFleetEnv(server.name);
    supervisor = await startSupervisor(server, fenv);
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await supervisor?.stop().catch(() => undefined);
    await server?.kill();
    await fenv?.cleanup();
  });

  async function writeTask(slug: string, fields: Record<string, unknown>): Promise<string> {
    const dir = join(fenv.home, 'tasks', slug);
    await mkdir(dir, { recursive: true });
    const now = new Date().toISOString();
    const file = join(dir, 'task.json');
    await writeFile(file, `${JSON.stringify({ slug, createdAt: now, updatedAt: now, ...fields }, null, 2)}\n`);
    return file;
  }

  async function liveRow(sid: string): Promise<number> {
    const c = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(c);
    const pid = c.pid!;
    await waitFor(() => procStartLstart(pid), 'sleep started');
    await writeFile(join(fenv.registry, `${pid}.json`), JSON.stringify({ pid, sessionId: sid, kind: 'interactive', status: 'idle', procStart: procStartLstart(pid), updatedAt: Date.now() }));
    return pid;
  }

  it("fills driverPid and driverProcStart once the owner's row appears after the stamp; leaves a recorded one alone", async () => {
    const late = await writeTask('late', { driverSid: OWNER, driverPane: 'op-late', keepMe: 'yes' });
    const settledSid = 'settled-0000-4000-8000-000000000002';
    const settled = await writeTask('settled', { driverSid: settledSid, driverPane: 'op-settled', driverPid: 1, driverProcStart: 'Thu Jan 1 00:00:00 1970' });
    const settledBytes = await readFile(settled, 'utf8');

    const pid = await liveRow(OWNER);
    await liveRow(settledSid);
    const task = await waitFor(async () => {
      const t = JSON.parse(await readFile(late, 'utf8')) as Task;
      return t.driverPid !== undefined ? t : null;
    }, 'driverPid recorded', 15_000);
    expect(task).toMatchObject({ driverSid: OWNER, driverPid: pid, driverProcStart: procStartLstart(pid), keepMe: 'yes' });
    expect(await readFile(settled, 'utf8')).toBe(settledBytes);
  });
});
