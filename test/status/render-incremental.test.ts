// The supervisor's incremental render (docs/status.md#incremental-wakes) shows
// what a full render shows: a fleet of real processes, their registry rows and
// tasks; random row changes (status flips, parks and returns, /clear, jobs
// ending and starting, dead rows rewritten), each wake rendered once with only
// the files that changed, and once from nothing. Every segment of every session
// must agree after every wake.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procStartTicks } from '../../src/proc';
import { makeRender } from '../../src/status/render';
import { renderDifferences } from '../../src/status/render-check';
import { diffSegments, HeldSegments, type Rendered } from '../../src/status/segment-writes';
import { noticeText } from '../../src/notify/notice';
import type { SessionSnap, TmuxSnapshot } from '../../src/tmux/snapshot';
import { waitFor } from '../helpers/env';
import { sessionSnap } from '../helpers/snapshot';
import { prng } from '../helpers/random';

const SESSIONS = 8;
const JOBS = ['a1b2c3d4', 'b2c3d4e5', 'c3d4e5f6'];
const sid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const name = (i: number) => `s${i}`;
/** task-5's spawn nonce, and another one. */
const NONCE_5 = '5'.repeat(32);
const NONCE_X = 'a'.repeat(32);

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
  // An agent that writes no registry row, found under a pane by its process alone (its kind shows): a binary named codex.
  const codex = join(root, 'codex');
  await copyFile('/bin/sleep', codex);
  await chmod(codex, 0o755);
  procs.push(spawn(codex, ['600'], { stdio: 'ignore', env: { ...process.env, CODEX_HOME: join(root, 'codex-home') } }));
  await waitFor(() => procs.every((p) => p.pid !== undefined && procStartTicks(p.pid) !== null), 'the processes started');
});

afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

type Snapshot = TmuxSnapshot;

/** The fleet every case starts from: tasks, rows of live and dead processes, sessions and panes, all written. */
async function makeFleet(random: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  await rm(registry, { recursive: true, force: true });
  await mkdir(registry, { recursive: true });
  await rm(join(home, 'tasks'), { recursive: true, force: true });
  const now = Date.now();
  const writeTask = async (slug: string, fields: Record<string, unknown>) => {
    const dir = join(home, 'tasks', slug);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const at = new Date(now).toISOString();
    await writeFile(join(dir, 'task.json'), JSON.stringify({ slug, createdAt: at, updatedAt: at, ...fields }), { mode: 0o600 });
  };
  // Tasks: the first five sessions drive one each; s5 is bound to task-0, which s0 owns (it lost a takeover).
  for (let i = 0; i < 5; i++) await writeTask(`task-${i}`, { driverSid: sid(i + 1), driverPane: `%${i}` });
  // A task still pending in s6 (s7 is bound to it too): its verdict reads s6's nonce and stamp, whatever session is named s6.
  await writeTask('task-5', { driverPane: name(6), spawnNonce: NONCE_5 });
  const rows = new Map<number, Row>();
  const tabs: number[] = [];
  const sessions: SessionSnap[] = [];
  const panes: TmuxSnapshot['panes'] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const pid = procs[i]!.pid!;
    tabs.push(pid);
    rows.set(pid, { pid, sessionId: sid(i + 1), kind: 'interactive', status: 'idle', procStart: String(procStartTicks(pid)), startedAt: now, updatedAt: now });
    const task = i < 5 ? `task-${i}` : i === 5 ? 'task-0' : 'task-5';
    const nonce = i === 6 ? NONCE_5 : '';
    sessions.push(sessionSnap(name(i), { created: String(Math.floor(now / 1000)), stamp: sid(i + 1), nonce, task }));
    panes.push({ session: name(i), id: `%${i}`, pid: String(pid), window: `@${i}`, job: '', title: '', active: '1', tty: '' });
  }
  // s3 has a second window where Codex runs; cx is Codex's own session, stamped with an id no row holds (its title tells its state).
  panes.push({ session: name(3), id: '%50', pid: String(procs[procs.length - 1]!.pid), window: '@50', job: '', title: '', active: '1', tty: '' });
  sessions.push(sessionSnap('cx', { created: String(Math.floor(now / 1000)), stamp: sid(600) }));
  panes.push({ session: 'cx', id: '%51', pid: String(procs[procs.length - 1]!.pid), window: '@51', job: '', title: '⠏ Write a haiku | work', active: '1', tty: '' });
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
  /** One to three random row changes, written; the files changed. */
  const changeRows = async (): Promise<Set<string>> => {
    const changed = new Set<string>();
    const n = 1 + Math.floor(random() * 3);
    for (let k = 0; k < n; k++) {
      const kind = pick(['status', 'status', 'status', 'park', 'clear', 'end', 'dead'] as const);
      const pid = kind === 'dead' ? pick([...rows.keys()].filter((p) => p >= 4_100_000)) : kind === 'end' ? pick(jobPids) : pick(random() < 0.75 ? tabs : jobPids);
      if (kind === 'dead') rows.get(pid)!.status = pick(['busy', 'idle']);
      else changes[kind]!(pid);
      changed.add(await write(pid));
    }
    return changed;
  };
  const snapshot: Snapshot = { sessions, clients: [], panes, config: {} };
  await rm(join(home, 'signals'), { recursive: true, force: true });
  await mkdir(join(home, 'signals'), { recursive: true, mode: 0o700 });
  /**
   * One or two agents' hooks say something new (src/agents/signals.ts): a signal
   * written for a stamp, from its own pane or another, or removed; the ids changed.
   */
  const changeSignals = async (s: Snapshot): Promise<Set<string>> => {
    const changed = new Set<string>();
    const n = 1 + Math.floor(random() * 2);
    for (let k = 0; k < n; k++) {
      const id = pick([...s.sessions.map((x) => x.stamp).filter(Boolean), sid(1), sid(777)]);
      const file = join(home, 'signals', `${id}.json`);
      if (random() < 0.2) await unlink(file).catch(() => undefined);
      else {
        const state = pick(['busy', 'idle', 'waiting'] as const);
        const signal = {
          agent: pick(['claude', 'codex', 'gemini']),
          sessionId: id,
          pane: pick([...s.panes.map((p) => p.id), '%999']),
          event: 'x',
          state,
          needs: state === 'waiting' ? pick([null, 'approve Bash: ls -la /', 'approve Shell: rm x']) : null,
          at: Date.now() + pick([-60_000, 0, 0]),
        };
        await writeFile(file, JSON.stringify(signal), { mode: 0o600 });
      }
      changed.add(id);
    }
    return changed;
  };
  return { snapshot, rows, tabs, pick, changeRows, changeSignals, writeTask };
}

/** Titles the agents give their panes (src/agents/state.ts), and others. */
const TITLES = ['', 'vm', '⠏ Write a haiku | work', '[ ! ] Action Required | Write | work', 'Write a haiku | work', '✦ Working… (work)', '✋ Action Required (work)', '◇ Ready (work)'];

/** What a wake tells (docs/notify.md#events), in a stable order. */
const toldOf = (r: { notices?: readonly { kind: string; who: string; what: string; session: string | null }[] }) =>
  (r.notices ?? []).map((n) => `${n.kind} ${n.who} ${n.session ?? '-'}: ${n.what}`).sort();

/** Every session's segments, and the fleet's attention. */
const segments = (r: { values: Map<string, Record<string, string>>; attention?: string }) => JSON.stringify([r.attention, ...[...r.values].sort(([a], [b]) => a.localeCompare(b))]);

/**
 * What tmux holds after the supervisor's write, as the supervisor keeps it: the
 * snapshot as read, its writes overlaid (HeldSegments); the unseen marks are
 * the one value a render reads back (docs/notify.md#unseen), so a full render
 * given the same overlay knows them as the incremental one does.
 */
const written = (held: HeldSegments, r: Rendered) => held.record(diffSegments(held, r.values));

/** A new tmux read after those writes: it holds them itself. */
const readAgain = (held: HeldSegments): Snapshot => {
  const next = structuredClone(held.snapshot);
  for (const s of next.sessions) s.unseen = held.value(s, '@fleet-unseen');
  return next;
};

describe('an incremental wake shows what a full render shows', () => {
  it.each([1, 2, 3])('seed %i: 80 wakes of random row and hook-signal changes, every segment of every session the same', async (seed) => {
    const random = prng(seed);
    const { snapshot, changeRows, changeSignals, pick } = await makeFleet(random);
    // Some sessions run agents that write no row (their recorded process says which), their panes titled as those agents title them.
    snapshot.sessions[1]!.agentProc = `codex ${procs[1]!.pid} ${procStartTicks(procs[1]!.pid!)}`;
    snapshot.sessions[2]!.agentProc = `gemini ${procs[2]!.pid} ${procStartTicks(procs[2]!.pid!)}`;
    for (const p of snapshot.panes) p.title = pick(TITLES);
    const incremental = makeRender(home, registry);
    // The same wakes computed whole each time (a recheck), from the same last wake: what they tell must be the same.
    const whole = makeRender(home, registry);
    const held = new HeldSegments(snapshot);
    written(held, await incremental(snapshot, { registryOnly: false, registryChanged: null }, held));
    await whole(snapshot, { registryOnly: false, registryChanged: null }, held);
    let told = 0;
    for (let wake = 0; wake < 80; wake++) {
      const signals = random() < 0.4 ? await changeSignals(snapshot) : new Set<string>();
      const changed = signals.size > 0 && random() < 0.5 ? new Set<string>() : await changeRows();
      const inc = await incremental(snapshot, { registryOnly: true, registryChanged: changed, jobsChanged: new Set(), signalsChanged: signals }, held);
      const ref = await whole(snapshot, { registryOnly: true, registryChanged: changed, jobsChanged: new Set(), signalsChanged: signals, recheck: true }, held);
      expect(toldOf(inc), `seed ${seed}, wake ${wake}: what it tells`).toEqual(toldOf(ref));
      told += toldOf(inc).length;
      written(held, inc);
      const full = await makeRender(home, registry)(snapshot, { registryOnly: false, registryChanged: null }, held);
      expect(segments(inc), `seed ${seed}, wake ${wake}: ${[...changed, ...signals].join(' ')}`).toBe(segments(full));
    }
    // Turns ended and waits began: the comparison of what is told was not of nothing.
    expect(told).toBeGreaterThan(5);
  });

  it("a pending Driver's stamp, carried by another session too, whose recorded process is another now: the sessions bound to the task see it change", async () => {
    const { snapshot } = await makeFleet(prng(7));
    const noRow = sid(777);
    // s6 is task-5's spawned Driver (its nonce), stamped with an id no row holds; s7 is bound to task-5.
    const s6 = snapshot.sessions.find((x) => x.name === 's6')!;
    s6.stamp = noRow;
    // s9 carries that stamp too, with the process it recorded: running, then exited.
    const running = procs[0]!.pid!;
    snapshot.sessions.push({ ...s6, name: 's9', nonce: '', task: '', agentProc: `claude ${running} ${procStartTicks(running)}` });
    snapshot.panes.push({ session: 's9', id: '%90', pid: String(procs[0]!.pid), window: '@90', job: '', title: '', active: '1', tty: '' });
    const incremental = makeRender(home, registry);
    // Read now: the render keeps its values map and changes it in place.
    const before = (await incremental(snapshot, { registryOnly: false, registryChanged: null })).values.get('s7')!['@fleet-owner'];
    expect(before).toContain('live');
    const next = structuredClone(snapshot);
    next.sessions.find((x) => x.name === 's9')!.agentProc = 'claude 4100001 12345';
    const inc = await incremental(next, { registryOnly: false, registryChanged: new Set(), jobsChanged: new Set() });
    const full = await makeRender(home, registry)(structuredClone(next), { registryOnly: false, registryChanged: null });
    expect(inc.recomputed).toBeLessThan(next.sessions.length);
    expect(inc.values.get('s7')!['@fleet-owner']).toBe(before.replace('live', 'gone'));
    expect(segments(inc)).toBe(segments(full));
  });

  it("deaths the poll found: only the rows of the pids gone are judged again (a stamp's process no row holds: every row), every segment the same", async () => {
    const random = prng(5);
    const { snapshot, rows, pick } = await makeFleet(random);
    // Processes of this test alone, to kill: s0..s3's tabs and job a1b2c3d4 run in them, and s1's stamp records one no row holds.
    const mine = Array.from({ length: 6 }, () => spawn('sleep', ['600'], { stdio: 'ignore' }));
    try {
      await waitFor(() => mine.every((p) => p.pid !== undefined && procStartTicks(p.pid) !== null), 'the processes started');
      const moved = [0, 1, 2, 3].map((i) => [...rows.values()].find((r) => r.sessionId === sid(i + 1))!);
      moved.push([...rows.values()].find((r) => r.jobId === JOBS[0])!);
      for (const [k, r] of moved.entries()) {
        await unlink(join(registry, `${r.pid}.json`));
        const pid = mine[k]!.pid!;
        rows.delete(r.pid);
        rows.set(pid, { ...r, pid, procStart: String(procStartTicks(pid)) });
        await writeFile(join(registry, `${pid}.json`), JSON.stringify(rows.get(pid)));
      }
      // s0 parks its work on that job: the job's death shows under s0.
      const s0 = rows.get(mine[0]!.pid!)!;
      s0.parkedJobId = JOBS[0];
      await writeFile(join(registry, `${s0.pid}.json`), JSON.stringify(s0));
      const stampOnly = mine[5]!.pid!;
      snapshot.sessions[1]!.agentProc = `codex ${stampOnly} ${procStartTicks(stampOnly)}`;
      const incremental = makeRender(home, registry);
      const held = new HeldSegments(snapshot);
      written(held, await incremental(snapshot, { registryOnly: false, registryChanged: null }, held));
      const order = [4, 2, 5, 0, 3, 1];
      for (const [wake, k] of order.entries()) {
        const pid = mine[k]!.pid!;
        const exited = new Promise((r) => mine[k]!.once('exit', r));
        mine[k]!.kill('SIGKILL');
        await exited;
        await waitFor(() => procStartTicks(pid) === null, 'the process reaped');
        // Now and then a row's status changed in the same wake.
        const changed = new Set<string>();
        if (random() < 0.5) {
          const r = rows.get(pick([...rows.keys()]))!;
          r.status = r.status === 'busy' ? 'idle' : 'busy';
          await writeFile(join(registry, `${r.pid}.json`), JSON.stringify({ ...r, updatedAt: Date.now() }));
          changed.add(`${r.pid}.json`);
        }
        const inc = await incremental(snapshot, { registryOnly: true, registryChanged: changed, jobsChanged: new Set(), signalsChanged: new Set(), died: new Set([pid]) }, held);
        written(held, inc);
        const full = await makeRender(home, registry)(snapshot, { registryOnly: false, registryChanged: null }, held);
        expect(segments(inc), `wake ${wake}: process ${k} died; ${[...changed].join(' ')}`).toBe(segments(full));
        // A row's process: the sessions of its chain computed again, not the fleet; a stamp's process no row holds: all of it.
        if (k === 5) expect(inc.recomputed ?? snapshot.sessions.length).toBe(snapshot.sessions.length);
        else expect(inc.recomputed, `wake ${wake}: process ${k} died`).toBeLessThan(snapshot.sessions.length / 2);
      }
    } finally {
      for (const p of mine) p.kill('SIGKILL');
    }
  });

  it.each([1, 2, 3])('seed %i: 80 wakes of random tmux changes (sessions renamed, closed, created, stamped, bound; panes moved), rows too at times, every segment the same', async (seed) => {
    const random = prng(seed);
    const { snapshot, rows, pick, changeRows, changeSignals } = await makeFleet(random);
    let state = snapshot;
    const incremental = makeRender(home, registry);
    const whole = makeRender(home, registry);
    let held = new HeldSegments(state);
    written(held, await incremental(state, { registryOnly: false, registryChanged: null }, held));
    await whole(state, { registryOnly: false, registryChanged: null }, held);
    let counter = 0;
    const slugs = ['', 'task-0', 'task-1', 'task-2', 'task-3', 'task-4', 'task-5', 'task-5', 'task-9'];
    const stamps = () => ['', ...[...rows.values()].map((r) => r.sessionId), sid(777)];
    const sorted = (s: Snapshot): Snapshot => ({ ...s, sessions: [...s.sessions].sort((a, b) => a.name.localeCompare(b.name)) });
    const edits: Record<string, (s: Snapshot) => string> = {
      rename: (s) => {
        const target = pick(s.sessions);
        // Now and then back to a name a session had (s6 is task-5's driverPane).
        const to = [pick(['s0', 's6', 's6', 's7']), `r${counter++}`].find((n) => !s.sessions.some((x) => x.name === n)) as string;
        for (const p of s.panes) if (p.session === target.name) p.session = to;
        const was = target.name;
        target.name = to;
        return `rename ${was} ${to}`;
      },
      close: (s) => {
        if (s.sessions.length <= 3) return 'close: none';
        const target = pick(s.sessions);
        s.sessions = s.sessions.filter((x) => x !== target);
        s.panes = s.panes.filter((p) => p.session !== target.name);
        return `close ${target.name}`;
      },
      create: (s) => {
        const n = `n${counter++}`;
        const pid = pick(procs).pid!;
        s.sessions.push(sessionSnap(n, { created: String(Math.floor(Date.now() / 1000)), stamp: pick(stamps()), nonce: pick(['', NONCE_5]), task: pick(slugs) }));
        s.panes.push({ session: n, id: `%${100 + counter}`, pid: String(pid), window: `@${100 + counter}`, job: '', title: '', active: '1', tty: '' });
        return `create ${n} pane pid ${pid}`;
      },
      stamp: (s) => {
        const target = pick(s.sessions);
        target.stamp = pick(stamps());
        return `stamp ${target.name} ${target.stamp}`;
      },
      bind: (s) => {
        const target = pick(s.sessions);
        target.task = pick(slugs);
        return `bind ${target.name} ${target.task}`;
      },
      nonce: (s) => {
        const target = pick(s.sessions);
        target.nonce = pick(['', NONCE_5, NONCE_X]);
        return `nonce ${target.name} ${target.nonce}`;
      },
      attach: (s) => {
        const target = pick(s.sessions);
        target.attached = target.attached === '0' ? '1' : '0';
        return `attach ${target.name}`;
      },
      agentProc: (s) => {
        const target = pick(s.sessions);
        const pid = pick([...procs.map((p) => p.pid!), 4_100_001]);
        target.agentProc = pick(['', ...['claude', 'codex', 'gemini'].map((kind) => `${kind} ${pid} ${procStartTicks(pid) ?? 1}`)]);
        return `agentProc ${target.name} ${target.agentProc}`;
      },
      // task-5's driverPane: s6 closed, renamed away, re-marked or made again, while other sessions show task-5.
      driverPane: (s) => {
        const s6 = s.sessions.find((x) => x.name === 's6');
        if (!s6) {
          const n = `%${200 + counter++}`;
          s.sessions.push(sessionSnap('s6', { stamp: pick(stamps()), nonce: pick([NONCE_5, NONCE_5, NONCE_X]), task: 'task-5' }));
          s.panes.push({ session: 's6', id: n, pid: String(pick(procs).pid!), window: `@${n}`, job: '', title: '', active: '1', tty: '' });
          return 'create s6';
        }
        const what = pick(['close', 'rename', 'nonce', 'stamp'] as const);
        if (what === 'close') {
          s.sessions = s.sessions.filter((x) => x !== s6);
          s.panes = s.panes.filter((p) => p.session !== 's6');
          return 'close s6';
        }
        if (what === 'rename') {
          const to = `r${counter++}`;
          for (const p of s.panes) if (p.session === 's6') p.session = to;
          s6.name = to;
          return `rename s6 ${to}`;
        }
        if (what === 'nonce') s6.nonce = pick(['', NONCE_5, NONCE_X]);
        else s6.stamp = pick(stamps());
        return `s6 ${what} ${s6.nonce} ${s6.stamp}`;
      },
      client: (s) => {
        // A client on a session, or none: what it shows is seen (its unseen mark goes).
        const on = pick([...s.sessions.map((x) => x.name), '']);
        s.clients = on === '' ? [] : [{ name: '/dev/pts/9', session: on, control: '0', messageTime: '', tty: '/dev/pts/9', termname: 'xterm', termtype: '', activity: '1' }];
        // As tmux counts them: the session a client is on is attached.
        for (const x of s.sessions) x.attached = x.name === on ? '1' : '0';
        return `client on ${on || 'nothing'}`;
      },
      title: (s) => {
        // Codex's own pane (cx's, wherever it went) half the time: its title is what its state is read from.
        const pane = (random() < 0.5 && s.panes.find((p) => p.id === '%51')) || pick(s.panes);
        pane.title = pick(TITLES);
        return `title ${pane.id} ${pane.title}`;
      },
      movePane: (s) => {
        const pane = pick(s.panes);
        const to = pick(s.sessions);
        pane.session = to.name;
        return `move ${pane.id} to ${to.name}`;
      },
    };
    let incremental_wakes = 0;
    for (let wake = 0; wake < 80; wake++) {
      const next = readAgain(held);
      const said: string[] = [];
      const n = 1 + Math.floor(random() * 2);
      for (let k = 0; k < n; k++) said.push(edits[pick(Object.keys(edits))]!(next));
      state = sorted(next);
      held = new HeldSegments(state);
      const changed = random() < 0.3 ? await changeRows() : new Set<string>();
      const signals = random() < 0.3 ? await changeSignals(state) : new Set<string>();
      const inc = await incremental(state, { registryOnly: false, registryChanged: changed, jobsChanged: new Set(), signalsChanged: signals }, held);
      const ref = await whole(state, { registryOnly: false, registryChanged: changed, jobsChanged: new Set(), signalsChanged: signals, recheck: true }, held);
      expect(toldOf(inc), `seed ${seed}, wake ${wake}: what it tells`).toEqual(toldOf(ref));
      written(held, inc);
      if (inc.recomputed !== undefined && inc.recomputed < state.sessions.length) incremental_wakes++;
      const full = await makeRender(home, registry)(state, { registryOnly: false, registryChanged: null }, held);
      expect(segments(inc), `seed ${seed}, wake ${wake}: ${said.join('; ')} ${[...changed, ...signals].join(' ')}`).toBe(segments(full));
    }
    // Most wakes computed only some sessions again: the test checks the incremental path, not the full one.
    expect(incremental_wakes).toBeGreaterThan(40);
  });
});

/**
 * Every input a wake reads, drawn at random: the snapshot's fields (from its
 * field list: a field added to SessionSnap or a pane is drawn the day it is
 * added, with a value of another session's, until it gets a value of its own
 * below), job state files, task files edited, rows, hook signals. Each wake:
 * the incremental render against a render that saw the same wakes but reads
 * every file again and computes everything whole (every segment, the fleet's
 * attention, job windows, unseen windows, toasts, notices). Not against a
 * render with no history: what the supervisor remembers (the process it saw
 * holding a stamp) may decide, and random inputs contradict it.
 */
/** A difference of an unseen mark's time alone (`<epoch s> <sentence>`), a second apart. */
const sameMarkAnotherSecond = (d: string): boolean => {
  const m = /@fleet-unseen: "(\d+) (.*)" incremental, "(\d+) (.*)" full$/.exec(d);
  return m !== null && m[2] === m[4] && Math.abs(Number(m[1]) - Number(m[3])) <= 1;
};

describe('an incremental wake, every input drawn at random', () => {
  /** The segments as tmux holds them, written by the supervisor: never read as an input. */
  const WRITTEN = new Set(['owner', 'hop', 'agent', 'attention', 'hopShort', 'agentShort']);

  it.each([11, 12, 13])('seed %i: 150 wakes', async (seed) => {
    const random = prng(seed);
    const { snapshot, rows, pick, changeRows, changeSignals, writeTask } = await makeFleet(random);
    const jobsDir = join(root, 'jobs');
    await rm(jobsDir, { recursive: true, force: true });
    const slugs = ['', 'task-0', 'task-1', 'task-2', 'task-3', 'task-4', 'task-5', 'task-9'];
    const stamps = () => ['', ...[...rows.values()].map((r) => r.sessionId), sid(777)];
    const pidOf = () => pick([...procs.map((p) => p.pid!), 4_100_001]);
    /** A value for each field of a session that is an input; a field not named here takes another session's. */
    const sessionValues: Record<string, (s: SessionSnap) => string> = {
      created: () => pick(['1', String(Math.floor(Date.now() / 1000) - pick([0, 60, 86_400])), '']),
      attached: () => pick(['0', '1', '2']),
      stamp: () => pick(stamps()),
      nonce: () => pick(['', NONCE_5, NONCE_X]),
      task: () => pick(slugs),
      agentProc: () => {
        const pid = pidOf();
        return pick(['', ...['claude', 'codex', 'gemini'].map((kind) => `${kind} ${pid} ${procStartTicks(pid) ?? 1}`)]);
      },
      unseen: () => pick(['', `${Math.floor(Date.now() / 1000)} task-1 finished its turn`, 'junk']),
    };
    const paneValues: Record<string, (s: Snapshot) => string> = {
      session: (s) => pick(s.sessions).name,
      pid: () => String(pidOf()),
      window: () => `@${pick([0, 1, 2, 50, 51, 77])}`,
      job: () => pick(['', ...JOBS]),
      title: () => pick(TITLES),
      active: () => pick(['0', '1']),
      tty: () => pick(['', '/dev/pts/7']),
    };
    const drawn = new Set<string>();
    const editSession = (s: Snapshot): string => {
      const target = pick(s.sessions);
      const field = pick(Object.keys(target).filter((f) => f !== 'name' && !WRITTEN.has(f))) as keyof SessionSnap;
      drawn.add(`session.${field}`);
      const value = sessionValues[field]?.(target) ?? pick(s.sessions)[field];
      (target as unknown as Record<string, string>)[field] = value;
      return `session ${target.name} ${field}=${value}`;
    };
    const editPane = (s: Snapshot): string => {
      const pane = pick(s.panes);
      const field = pick(Object.keys(pane).filter((f) => f !== 'id')) as keyof Snapshot['panes'][number];
      drawn.add(`pane.${field}`);
      const value = paneValues[field]?.(s) ?? pick(s.panes)[field];
      (pane as unknown as Record<string, string>)[field] = value;
      return `pane ${pane.id} ${field}=${value}`;
    };
    /** A job's state file as Claude Code writes it (test/fixtures/real-job-state-*.json), changed or removed. */
    const changeJob = async (): Promise<string> => {
      const jobId = pick(JOBS);
      const dir = join(jobsDir, jobId);
      if (random() < 0.2) {
        await rm(dir, { recursive: true, force: true });
        return jobId;
      }
      await mkdir(dir, { recursive: true });
      const tempo = pick(['active', 'idle', 'blocked']);
      const state = { state: pick(['working', 'blocked', 'stopped']), tempo, needs: tempo === 'blocked' ? pick(['approve Bash: ls -la /', 'API unavailable — retry', null]) : null, detail: pick(['list the root', null]), intent: pick(['park me: list the root', null]), name: 'Park me', sessionId: null, updatedAt: new Date().toISOString() };
      await writeFile(join(dir, 'state.json'), JSON.stringify(state));
      return jobId;
    };
    /** A task file edited: its Driver, its pending spawn, its label, archived or not. */
    const changeTask = async (): Promise<string> => {
      const slug = pick(['task-0', 'task-1', 'task-2', 'task-3', 'task-4', 'task-5']);
      const fields: Record<string, unknown> = {};
      if (random() < 0.7) fields.driverSid = pick(stamps().filter(Boolean));
      else fields.spawnNonce = pick([NONCE_5, NONCE_X]);
      fields.driverPane = pick(['%0', '%1', name(6), '%50']);
      if (random() < 0.3) fields.label = pick(['fix the login', '#(touch x)']);
      if (random() < 0.15) fields.archivedAt = new Date().toISOString();
      await writeTask(slug, fields);
      return slug;
    };
    const toldOf = (r: Rendered) => JSON.stringify([(r.notices ?? []).map(noticeText).sort(), r.toasts.map((t) => `${t.session}: ${t.text}`).sort()]);
    const incremental = makeRender(home, registry);
    const whole = makeRender(home, registry);
    let state = snapshot;
    let held = new HeldSegments(state);
    written(held, await incremental(state, { registryOnly: false, registryChanged: null }, held));
    await whole(state, { registryOnly: false, registryChanged: null }, held);
    let partial = 0;
    for (let wake = 0; wake < 150; wake++) {
      const said: string[] = [];
      const tmuxChanged = random() < 0.7;
      if (tmuxChanged) {
        const next = readAgain(held);
        for (let k = 0; k < 1 + Math.floor(random() * 3); k++) said.push(random() < 0.6 ? editSession(next) : editPane(next));
        state = next;
        held = new HeldSegments(state);
      }
      const jobs = random() < 0.3 ? new Set([await changeJob()]) : new Set<string>();
      const tasks = random() < 0.25 ? new Set([await changeTask()]) : new Set<string>();
      const changed = random() < 0.4 ? await changeRows() : new Set<string>();
      const signals = random() < 0.25 ? await changeSignals(state) : new Set<string>();
      said.push(...[...jobs].map((j) => `job ${j}`), ...[...tasks].map((t) => `task ${t}`), ...changed, ...[...signals].map((x) => `signal ${x}`));
      const hint = { registryOnly: !tmuxChanged && tasks.size === 0, registryChanged: changed, jobsChanged: jobs, tasksChanged: tasks, signalsChanged: signals };
      const inc = await incremental(state, hint, held);
      // Every file read again and everything computed whole, by a render that saw the same wakes: what the supervisor
      // remembers (the process seen holding a stamp, what was told) is the same on both sides, the work is not.
      const ref = await whole(state, { registryOnly: false, registryChanged: null, tasksChanged: null, signalsChanged: null, recheck: true }, held);
      const why = `seed ${seed}, wake ${wake}: ${said.join('; ')}`;
      // An unseen mark says when, to the second, and the two renders may fall in two seconds.
      expect(renderDifferences(inc, ref).filter((d) => !sameMarkAnotherSecond(d)), why).toEqual([]);
      expect(toldOf(inc), `${why}: what it tells`).toBe(toldOf(ref));
      written(held, inc);
      if (inc.recomputed !== undefined && inc.recomputed < state.sessions.length) partial++;
    }
    // The incremental path was the one checked, and every input field of the snapshot was drawn.
    expect(partial).toBeGreaterThan(60);
    const fields = [...Object.keys(snapshot.sessions[0]!).filter((f) => f !== 'name' && !WRITTEN.has(f)).map((f) => `session.${f}`), ...Object.keys(snapshot.panes[0]!).filter((f) => f !== 'id').map((f) => `pane.${f}`)];
    expect(fields.filter((f) => !drawn.has(f))).toEqual([]);
  });
});
