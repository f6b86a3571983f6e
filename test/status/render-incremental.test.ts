// The supervisor's incremental render (docs/status.md#incremental-wakes) shows
// what a full render shows: a fleet of real processes, their registry rows and
// tasks; random row changes (status flips, parks and returns, /clear, jobs
// ending and starting, dead rows rewritten), each wake rendered once with only
// the files that changed, and once from nothing. Every segment of every session
// must agree after every wake.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procStartTicks } from '../../src/proc';
import { makeRender } from '../../src/status/render';
import type { SessionSnap, TmuxSnapshot } from '../../src/tmux/snapshot';
import { waitFor } from '../helpers/env';

const SESSIONS = 8;
const JOBS = ['a1b2c3d4', 'b2c3d4e5', 'c3d4e5f6'];
const sid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const name = (i: number) => `s${i}`;

interface Row {
  pid: number;
  sessionId: string;
  kind: string;
  status?: string;
  waitingFor?: string;
  jobId?: string;
  parkedJobId?: string;
  procStart?: string;
  startedAt: number;
  updatedAt: number;
}

/** A small deterministic generator: a failing run can be replayed from its seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let root: string;
let home: string;
let registry: string;
const procs: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fleet-render-'));
  home = join(root, 'home');
  registry = join(root, 'registry');
  await mkdir(registry, { recursive: true });
  await mkdir(home, { recursive: true, mode: 0o700 });
  for (let i = 0; i < SESSIONS + JOBS.length; i++) procs.push(spawn('sleep', ['600'], { stdio: 'ignore' }));
  await waitFor(() => procs.every((p) => p.pid !== undefined && procStartTicks(p.pid) !== null), 'the processes started');
});

afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

describe('an incremental wake shows what a full render shows', () => {
  it.each([1, 2, 3])('seed %i: 80 wakes of random row changes, every segment of every session the same', async (seed) => {
    const random = prng(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    await rm(registry, { recursive: true, force: true });
    await mkdir(registry, { recursive: true });
    await rm(join(home, 'tasks'), { recursive: true, force: true });
    const now = Date.now();
    // Tasks: the first five sessions drive one each; s5 is bound to task-0, which s0 owns (it lost a takeover).
    for (let i = 0; i < 5; i++) {
      const dir = join(home, 'tasks', `task-${i}`);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const at = new Date(now).toISOString();
      await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: `task-${i}`, createdAt: at, updatedAt: at, driverSid: sid(i + 1), driverPane: `%${i}` }), { mode: 0o600 });
    }
    const rows = new Map<number, Row>();
    const tabs: number[] = [];
    const sessions: SessionSnap[] = [];
    const panes: TmuxSnapshot['panes'] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const pid = procs[i]!.pid!;
      tabs.push(pid);
      rows.set(pid, { pid, sessionId: sid(i + 1), kind: 'interactive', status: 'idle', procStart: String(procStartTicks(pid)), startedAt: now, updatedAt: now });
      const task = i < 5 ? `task-${i}` : i === 5 ? 'task-0' : '';
      sessions.push({ name: name(i), created: String(Math.floor(now / 1000)), attached: '0', stamp: sid(i + 1), nonce: '', task, agentProc: '', owner: '', hop: '', agent: '', attention: '', hopShort: '', agentShort: '' });
      panes.push({ session: name(i), id: `%${i}`, pid: String(pid), window: `@${i}`, job: '' });
    }
    const jobPids: number[] = [];
    JOBS.forEach((jobId, j) => {
      const pid = procs[SESSIONS + j]!.pid!;
      jobPids.push(pid);
      rows.set(pid, { pid, sessionId: `${jobId}-0000-4000-8000-00000000000${j}`, kind: 'bg', status: 'busy', jobId, procStart: String(procStartTicks(pid)), startedAt: now, updatedAt: now });
    });
    // Rows of processes long gone.
    for (let d = 0; d < 6; d++) rows.set(4_100_000 + d, { pid: 4_100_000 + d, sessionId: sid(900 + d), kind: 'interactive', status: 'idle', startedAt: now - 86_400_000, updatedAt: now - 86_400_000 });
    const gone = new Set<number>();
    const write = async (pid: number) => {
      const file = join(registry, `${pid}.json`);
      if (gone.has(pid)) await unlink(file).catch(() => undefined);
      else await writeFile(file, JSON.stringify({ ...rows.get(pid), updatedAt: Date.now() }));
      return `${pid}.json`;
    };
    for (const pid of rows.keys()) await write(pid);

    const snapshot: TmuxSnapshot = { sessions, clients: [], panes, config: {} };
    const incremental = makeRender(home, registry);
    const segments = (values: Map<string, Record<string, string>>) => JSON.stringify([...values].sort(([a], [b]) => a.localeCompare(b)));
    await incremental(snapshot, { registryOnly: false, registryChanged: null });

    const changes: Record<string, (pid: number) => void> = {
      status: (pid) => {
        const r = rows.get(pid)!;
        r.status = pick(['busy', 'idle', 'waiting']);
        if (r.status === 'waiting') r.waitingFor = pick(['permission prompt', 'input needed']);
        else delete r.waitingFor;
      },
      park: (pid) => {
        const r = rows.get(pid)!;
        if (r.kind !== 'interactive') return;
        if (r.parkedJobId) delete r.parkedJobId;
        else r.parkedJobId = pick(JOBS);
      },
      clear: (pid) => {
        const r = rows.get(pid)!;
        if (r.kind !== 'interactive') return;
        const i = tabs.indexOf(pid);
        r.sessionId = r.sessionId === sid(i + 1) ? sid(500 + Math.floor(random() * 1000)) : sid(i + 1);
        delete r.parkedJobId;
      },
      end: (pid) => {
        if (rows.get(pid)!.kind !== 'bg') return;
        if (gone.has(pid)) gone.delete(pid);
        else gone.add(pid);
      },
    };
    for (let wake = 0; wake < 80; wake++) {
      const changed = new Set<string>();
      const n = 1 + Math.floor(random() * 3);
      for (let k = 0; k < n; k++) {
        const kind = pick(['status', 'status', 'status', 'park', 'clear', 'end', 'dead'] as const);
        const pid = kind === 'dead' ? pick([...rows.keys()].filter((p) => p >= 4_100_000)) : kind === 'end' ? pick(jobPids) : pick(random() < 0.75 ? tabs : jobPids);
        if (kind === 'dead') rows.get(pid)!.status = pick(['busy', 'idle']);
        else changes[kind]!(pid);
        changed.add(await write(pid));
      }
      const inc = await incremental(snapshot, { registryOnly: true, registryChanged: changed, jobsChanged: new Set() });
      const full = await makeRender(home, registry)(structuredClone(snapshot), { registryOnly: false, registryChanged: null });
      expect(segments(inc.values), `seed ${seed}, wake ${wake}: ${[...changed].join(' ')}`).toBe(segments(full.values));
    }
  });
});
