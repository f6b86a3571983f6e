// The supervisor's work follows what changed (docs/status.md#incremental-wakes):
// a real supervisor (in this process, so its counters can be read) on a real
// tmux server with a small fleet of stamped sessions, their registry rows and
// tasks. Each test asserts on the counters of work done (rows read, sessions
// computed, tmux reads, options and calls written), never on a wall time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSupervisor } from '../../src/cli/supervise';
import type { Context } from '../../src/context';
import { procStartTicks } from '../../src/proc';
import { registryDir } from '../../src/context';
import { makeRender, supervisorFormats } from '../../src/status/render';
import { SEGMENT_OPTIONS, type Render } from '../../src/status/segment-writes';
import { BUSY_WAKES, COALESCE_MS, DEBOUNCE_MS, Supervisor, tickDelay, WAKE_GAP_MS } from '../../src/status/supervisor';
import { Tmux } from '../../src/tmux';
import { makeFleetEnv, waitFor, type FleetEnv } from '../helpers/env';
import { socketPathOf } from '../helpers/supervisor';
import { attachStatusClient, startServer, type TestServer } from '../helpers/tmux-server';

const SESSIONS = 10;
/** The session whose work is parked on a background job (a process of its own). */
const PARKED = SESSIONS - 1;
const JOB = 'a1b2c3d4';
const sid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const name = (i: number) => `s${String(i).padStart(2, '0')}`;

interface Row {
  pid: number;
  sessionId: string;
  cwd: string;
  startedAt: number;
  procStart: string;
  kind: string;
  status: string;
  updatedAt: number;
  jobId?: string;
  parkedJobId?: string;
}

let server: TestServer;
let fenv: FleetEnv;
let job: ChildProcess;
const rows = new Map<string, Row>();

async function writeRow(key: string, change: Partial<Row> = {}): Promise<void> {
  const row = { ...(rows.get(key) as Row), ...change, updatedAt: Date.now() };
  rows.set(key, row);
  await writeFile(join(fenv.registry, `${row.pid}.json`), JSON.stringify(row));
}

/** Every segment option of every session, as tmux holds them. */
async function shown(): Promise<Map<string, string>> {
  const format = ['#{session_name}', ...SEGMENT_OPTIONS.map((o) => `#{${o}}`)].join('\t');
  const out = new Map<string, string>();
  for (const line of (await server.run(['list-sessions', '-F', format])).split('\n').filter(Boolean)) {
    const [session, ...values] = line.split('\t');
    SEGMENT_OPTIONS.forEach((o, i) => out.set(`${session} ${o}`, values[i] ?? ''));
  }
  return out;
}
const differing = (a: Map<string, string>, b: Map<string, string>) => [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();
const agentOf = async (i: number) => (await server.run(['show-options', '-qv', '-t', `=${name(i)}:`, '@fleet-agent'])).trim();

type Stats = Supervisor['stats'];
/** The supervisor's counters once it is idle and they have stopped moving (every change reported so far written). */
async function settled(sup: Supervisor): Promise<Stats> {
  let last = '';
  let stableSince = 0;
  await waitFor(
    () => {
      const now = JSON.stringify(sup.stats);
      if (!sup.idle || now !== last) {
        last = now;
        stableSince = Date.now();
        return false;
      }
      return Date.now() - stableSince >= 500;
    },
    'the supervisor idle',
    30_000,
  );
  return { ...sup.stats };
}
const delta = (a: Stats, b: Stats) => Object.fromEntries(Object.keys(a).map((k) => [k, b[k as keyof Stats] - a[k as keyof Stats]])) as Stats;

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  const cmds: string[][] = [];
  for (let i = 0; i < SESSIONS; i++) {
    await server.newSession(name(i));
    cmds.push(['set-option', '-t', `=${name(i)}:`, '@claude_session_id', sid(i + 1)]);
    // Four sessions drive a task each.
    if (i < 4) {
      const slug = `task-${i}`;
      await mkdir(join(fenv.home, 'tasks', slug), { recursive: true, mode: 0o700 });
      const now = new Date().toISOString();
      await writeFile(join(fenv.home, 'tasks', slug, 'task.json'), JSON.stringify({ slug, createdAt: now, updatedAt: now, driverSid: sid(i + 1), driverPane: name(i) }), { mode: 0o600 });
      cmds.push(['set-option', '-t', `=${name(i)}:`, '@fleet-task', slug]);
    }
  }
  await server.tmux.chain(cmds);
  const panes = (await server.run(['list-panes', '-a', '-F', '#{session_name}\t#{pane_pid}'])).split('\n').map((l) => l.split('\t'));
  const now = Date.now();
  for (const [session, pidText] of panes) {
    const i = Number(session?.slice(1));
    if (!session?.startsWith('s') || !Number.isInteger(i)) continue;
    const pid = Number(pidText);
    rows.set(name(i), { pid, sessionId: sid(i + 1), cwd: `/work/${session}`, startedAt: now, procStart: String(procStartTicks(pid)), kind: 'interactive', status: i % 2 ? 'busy' : 'idle', updatedAt: now });
  }
  // The parked session: idle, its work running under the job's row.
  job = spawn('sleep', ['86400'], { stdio: 'ignore' });
  const jobPid = job.pid as number;
  rows.set('job', { pid: jobPid, sessionId: sid(500), cwd: '/work/job', startedAt: now, procStart: String(procStartTicks(jobPid)), kind: 'bg', status: 'busy', updatedAt: now, jobId: JOB });
  rows.set(name(PARKED), { ...(rows.get(name(PARKED)) as Row), status: 'idle', parkedJobId: JOB });
  for (const key of rows.keys()) await writeRow(key);
  // Rows of processes long gone: more files than sessions.
  for (let i = 0; i < 20; i++) await writeFile(join(fenv.registry, `${4_000_000 + i}.json`), JSON.stringify({ pid: 4_000_000 + i, sessionId: sid(900 + i), cwd: '/tmp', startedAt: now, kind: 'interactive', status: 'idle', updatedAt: now }));
});

afterAll(async () => {
  job?.kill('SIGKILL');
  await server?.kill();
  await fenv?.cleanup();
});

const context = (): Context => ({ home: fenv.home, socket: { name: server.name }, json: false, env: { ...fenv.env } });

describe('a wake does the work of what changed, and no more', () => {
  let sup: Supervisor;
  let done: Promise<number>;
  beforeAll(async () => {
    sup = await makeSupervisor(context());
    done = sup.run();
    // The first render: every session's agent segment written.
    await waitFor(async () => (await shown()).get(`${name(0)} @fleet-agent`) !== '' && (await agentOf(PARKED)) !== '', 'the first render', 30_000);
  });
  afterAll(async () => {
    sup?.stop(0, 'test over');
    await done;
  });

  it('a row rewritten: that one file read, the one session it touches computed, only the options whose text changed written, in one call, with no tmux read', async () => {
    const before = await settled(sup);
    const was = await shown();
    // Idle to busy: no turn finished, no wait (either would be news for every session's attention count).
    await writeRow(name(2), { status: 'busy' });
    await waitFor(async () => (await agentOf(2)).includes('busy'), 's02 shows busy', 15_000);
    const d = delta(before, await settled(sup));
    const changed = differing(was, await shown());
    // The agent segment and its short form: the icon differs between busy and idle.
    expect(changed).toEqual([`${name(2)} @fleet-agent`, `${name(2)} @fleet-agent-short`]);
    // One write may come as two watch events: each tick then reads that file and computes that session, no other.
    expect(d.ticks).toBeGreaterThanOrEqual(1);
    expect(d).toMatchObject({ reads: 0, rowsRead: d.ticks, sessions: d.ticks, options: changed.length, writes: 1 });
  });

  it("the job's row changing: the session parked on it computed again (its chain), no other", async () => {
    const before = await settled(sup);
    const was = await shown();
    expect(await agentOf(PARKED)).toContain('busy');
    // Busy to a shell running: neither a finished turn nor a wait.
    await writeRow('job', { status: 'shell' });
    await waitFor(async () => (await agentOf(PARKED)).includes('shell'), 'the parked session shows the job in a shell', 15_000);
    const d = delta(before, await settled(sup));
    const changed = differing(was, await shown());
    expect(changed).toEqual([`${name(PARKED)} @fleet-agent`, `${name(PARKED)} @fleet-agent-short`]);
    expect(d).toMatchObject({ reads: 0, rowsRead: d.ticks, sessions: d.ticks, options: changed.length, writes: 1 });
  });

  it('a row that changes nothing shown: read and computed, nothing written', async () => {
    const before = await settled(sup);
    const was = await shown();
    await writeRow(name(5), { cwd: '/work/elsewhere' });
    await waitFor(() => sup.stats.rowsRead > before.rowsRead && sup.idle, 'the wake for the row', 15_000);
    const d = delta(before, await settled(sup));
    expect(differing(was, await shown())).toEqual([]);
    expect(d).toMatchObject({ reads: 0, rowsRead: d.ticks, sessions: d.ticks, options: 0, writes: 0 });
  });

  it('a row renamed into place (a temp file renamed over it): the same work as one rewritten in place, and the polls after it read nothing more', async () => {
    const before = await settled(sup);
    const was = await shown();
    const row = { ...(rows.get(name(4)) as Row), status: 'busy', updatedAt: Date.now() };
    rows.set(name(4), row);
    // The directory's mtime moves (a name made and one replaced): the watch names the file, the poll must not take it for a miss.
    const tmp = join(fenv.registry, `.${row.pid}.json.tmp`);
    await writeFile(tmp, JSON.stringify(row));
    await rename(tmp, join(fenv.registry, `${row.pid}.json`));
    await waitFor(async () => (await agentOf(4)).includes('busy'), 's04 shows busy', 15_000);
    const polls = sup.stats.polls;
    await waitFor(() => sup.stats.polls >= polls + 2 && sup.idle, 'two polls after the write', 15_000);
    const d = delta(before, await settled(sup));
    const changed = differing(was, await shown());
    expect(changed).toEqual([`${name(4)} @fleet-agent`, `${name(4)} @fleet-agent-short`]);
    expect(d).toMatchObject({ reads: 0, options: changed.length, writes: 1 });
    // The write is several events (the temp file made, written, renamed): a tick may see only the temp file's and read nothing.
    // Each tick reads the one row at most and computes its session at most, never the fleet.
    expect(d.rowsRead).toBeGreaterThanOrEqual(1);
    expect(d.rowsRead).toBeLessThanOrEqual(d.ticks);
    expect(d.sessions).toBe(d.rowsRead);
  });

  it("a turn ended while no client looks: the fleet's attention changes for every session in one global write, not one per session", async () => {
    const before = await settled(sup);
    const was = await shown();
    const attentionOf = async (i: number) => (await server.run(['display-message', '-p', '-t', `=${name(i)}:`, '#{@fleet-attention}'])).trim();
    expect(await attentionOf(0)).not.toContain('done');
    expect(rows.get(name(7))?.status).toBe('busy');
    await writeRow(name(7), { status: 'idle' });
    await waitFor(async () => (await attentionOf(0)).includes('1 done'), 'the attention counts the finished turn', 15_000);
    const d = delta(before, await settled(sup));
    const changed = differing(was, await shown());
    // The session's own segments and its unseen mark, the mark of its agent's window (docs/notify.md#unseen), and the
    // count, as every session's status line reads it, in one global option: not one per session.
    expect(changed).toEqual([`${name(7)} @fleet-agent`, `${name(7)} @fleet-agent-short`, `${name(7)} @fleet-unseen`]);
    for (let i = 0; i < SESSIONS; i++) expect(await attentionOf(i)).toContain('1 done');
    expect(d).toMatchObject({ reads: 0, options: changed.length + 2, writes: 1 });
  });

  it('a nudge (a stamp, a spawn, a takeover) reads tmux once and no row; a session closed reads tmux once per wake', async () => {
    let before = await settled(sup);
    process.kill(process.pid, 'SIGUSR2');
    await waitFor(() => sup.stats.ticks > before.ticks && sup.idle, 'the wake for the nudge', 15_000);
    let d = delta(before, await settled(sup));
    expect(d).toMatchObject({ ticks: 1, reads: 1, rowsRead: 0, options: 0, writes: 0 });
    await server.newSession('spare');
    before = await settled(sup);
    await server.run(['kill-session', '-t', '=spare:']);
    await waitFor(() => sup.stats.reads > before.reads && sup.idle, 'the wake for the closed session', 15_000);
    d = delta(before, await settled(sup));
    expect(d.ticks).toBeGreaterThanOrEqual(1);
    expect(d).toMatchObject({ reads: d.ticks, rowsRead: 0, options: 0, writes: 0 });
  });

  it('a session renamed: tmux read once, only that session computed again (under its new name), nothing written; its segments follow the name', async () => {
    const before = await settled(sup);
    const was = await shown();
    await server.run(['rename-session', '-t', `=${name(1)}:`, 'renamed']);
    await waitFor(() => sup.stats.reads > before.reads && sup.idle, 'the wake for the rename', 15_000);
    const d = delta(before, await settled(sup));
    const now = await shown();
    for (const o of SEGMENT_OPTIONS) expect(now.get(`renamed ${o}`), o).toBe(was.get(`${name(1)} ${o}`));
    expect(now.get(`renamed @fleet-owner`)).toContain('owner task-1');
    expect(d.ticks).toBeGreaterThanOrEqual(1);
    // Each wake (the hook may fire as two) computes the renamed session alone, not the fleet of ${SESSIONS}.
    expect(d).toMatchObject({ reads: d.ticks, rowsRead: 0, sessions: d.ticks, options: 0, writes: 0 });
    await server.run(['rename-session', '-t', '=renamed:', name(1)]);
    await waitFor(async () => (await shown()).get(`${name(1)} @fleet-owner`) === was.get(`${name(1)} @fleet-owner`) && sup.idle, 'renamed back', 15_000);
  });

  it('a burst of 100 row changes at 100 a second: a few writes, each carrying every change since the last; the last change of each row shown', async () => {
    const before = await settled(sup);
    const flipped = [0, 2, 4, 6, 8].map(name);
    const t0 = Date.now();
    for (let i = 0; i < 100; i++) {
      const key = flipped[i % flipped.length] as string;
      await writeRow(key, { status: rows.get(key)?.status === 'busy' ? 'idle' : 'busy' });
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i + 1) * 10 - Date.now())));
    }
    const seconds = (Date.now() - t0) / 1000;
    const after = await settled(sup);
    const d = delta(before, after);
    for (const key of flipped) expect(await agentOf(Number(key.slice(1)))).toContain(` ${rows.get(key)?.status}`);
    // A tick per wake only until the wakes of a second pass BUSY_WAKES, then one per COALESCE_MS: a handful, never one per change.
    const most = BUSY_WAKES + Math.ceil((seconds * 1000 + DEBOUNCE_MS) / COALESCE_MS) + 1;
    console.log(`burst: 100 changes in ${seconds.toFixed(2)} s, ${d.ticks} ticks, ${d.writes} write calls, ${d.options} options (at most ${most} ticks allowed)`);
    expect(d.ticks).toBeLessThanOrEqual(most);
    expect(d.writes).toBeLessThanOrEqual(d.ticks);
    expect(d.reads).toBe(0);
    expect(d.coalesced).toBeGreaterThan(0);
  });
});

describe("the fleet's attention, kept in one global option", () => {
  it("a session's own value (an older build wrote one in every session) is unset at the first wake, so that it hides nothing", async () => {
    const own = async (i: number) => (await server.run(['show-options', '-qv', '-t', `=${name(i)}:`, '@fleet-attention'])).trim();
    await server.run(['set-option', '-t', `=${name(3)}:`, '@fleet-attention', '! 9 waiting']);
    await server.run(['set-option', '-g', '@fleet-attention', 'stale']);
    expect(await own(3)).toBe('! 9 waiting');
    const sup = await makeSupervisor(context());
    const done = sup.run();
    try {
      await waitFor(async () => (await server.run(['show-options', '-gqv', '@fleet-attention'])).trim() !== 'stale' && sup.idle, 'the first render', 30_000);
      expect(await own(3)).toBe('');
      const global = (await server.run(['show-options', '-gqv', '@fleet-attention'])).trim();
      expect((await server.run(['display-message', '-p', '-t', `=${name(3)}:`, '#{@fleet-attention}'])).trim()).toBe(global);
    } finally {
      sup.stop(0, 'test over');
      await done;
    }
  });
});

describe('a death', () => {
  let sup: Supervisor;
  let done: Promise<number>;
  beforeAll(async () => {
    sup = await makeSupervisor(context());
    done = sup.run();
    await waitFor(async () => (await agentOf(PARKED)) !== '' && sup.idle, 'the first render', 30_000);
  });
  afterAll(async () => {
    sup?.stop(0, 'test over');
    await done;
  });

  it("a row's process killed: the poll finds it, and the next wake judges that row alone and computes the sessions of its chain, no other, with no file read", async () => {
    const before = await settled(sup);
    const was = await shown();
    const exited = new Promise((r) => job.once('exit', r));
    job.kill('SIGKILL');
    await exited;
    const polls = sup.stats.polls;
    await waitFor(() => sup.stats.polls >= polls + 2 && sup.idle, 'two polls after the death', 15_000);
    const d = delta(before, await settled(sup));
    const changed = differing(was, await shown());
    // The parked session showed its job at work; the job gone, it shows something else.
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((k) => k.startsWith(`${name(PARKED)} `)), changed.join(', ')).toBe(true);
    expect(d).toMatchObject({ ticks: 1, reads: 0, rowsRead: 0, sessions: 1, options: changed.length, writes: 1 });
  });
});

describe('order: a newer change is never overwritten by an older wake, and one tick writes at a time', () => {
  it('a row rewritten while the wake for its older text is still rendering: the newer text is what stays', async () => {
    const socketPath = await socketPathOf(server);
    const tmux = new Tmux({ path: socketPath }, 'tmux', { direct: true });
    const inner = makeRender(fenv.home, registryDir(fenv.env));
    let rendering = 0;
    let most = 0;
    /** While set, a render waits after computing (from the rows as they were) until it is released. */
    let hold: { reached: () => void; release: Promise<void> } | null = null;
    const gated: Render = async (snapshot, hint) => {
      rendering++;
      most = Math.max(most, rendering);
      try {
        const out = await inner(snapshot, hint);
        const h = hold;
        hold = null;
        if (h) {
          h.reached();
          await h.release;
        }
        return out;
      } finally {
        rendering--;
      }
    };
    const serverPid = Number((await server.run(['display-message', '-p', '#{pid}'])).trim());
    const sup = new Supervisor({ tmux, home: fenv.home, registryDir: registryDir(fenv.env), socketPath, serverPid, intervalMs: 60_000, render: gated, formats: supervisorFormats() });
    const done = sup.run();
    try {
      await waitFor(async () => (await agentOf(1)) !== '', 'the first render', 30_000);
      await writeRow(name(1), { status: 'idle' });
      await waitFor(async () => (await agentOf(1)).includes(' idle'), 's01 shows idle', 15_000);
      await settled(sup);
      let release = () => undefined as void;
      const reached = new Promise<void>((resolve) => {
        hold = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
      });
      await writeRow(name(1), { status: 'busy' });
      await reached;
      // The older wake has computed "busy" and not yet written it; the row now says idle.
      const wakes = sup.stats.wakes;
      await writeRow(name(1), { status: 'idle' });
      await waitFor(() => sup.stats.wakes > wakes, 'the wake for the newer text asked for', 15_000);
      const ticks = sup.stats.ticks;
      // Its tick comes due while the first renders: deferred, not started.
      const deferred = sup.stats.deferred;
      await waitFor(() => sup.stats.deferred > deferred || sup.stats.ticks > ticks, 'the tick for the newer text to come due', 15_000);
      expect(sup.stats.ticks).toBe(ticks);
      release();
      await waitFor(() => sup.stats.ticks > ticks, 'the wake for the newer text', 15_000);
      await settled(sup);
      expect(await agentOf(1)).toContain(' idle');
      expect(most).toBe(1);
    } finally {
      sup.stop(0, 'test over');
      await done;
    }
  });
});

describe('toasts', () => {
  it("two toasts of one tick for one client (a hop and a wait): both shown, joined, not the second over the first", async () => {
    const socketPath = await socketPathOf(server);
    const tmux = new Tmux({ path: socketPath }, 'tmux', { direct: true });
    const inner = makeRender(fenv.home, registryDir(fenv.env));
    let extra: { session: string; text: string }[] = [];
    const render: Render = async (snapshot, hint) => {
      const out = await inner(snapshot, hint);
      const toasts = [...out.toasts, ...extra];
      extra = [];
      return { ...out, toasts };
    };
    const serverPid = Number((await server.run(['display-message', '-p', '#{pid}'])).trim());
    // The client first: the supervisor's first read lists it (a client that attaches later wakes it through a hook, a moment after).
    const client = await attachStatusClient(server, name(2));
    const sup = new Supervisor({ tmux, home: fenv.home, registryDir: registryDir(fenv.env), socketPath, serverPid, intervalMs: 60_000, render, formats: supervisorFormats() });
    const done = sup.run();
    try {
      await waitFor(async () => (await agentOf(3)) !== '', 'the first render', 30_000);
      await settled(sup);
      extra = [
        { session: name(2), text: 'fleet: work came back to 0000' },
        { session: name(2), text: 'fleet: job 7e57ab1e waits: permission prompt' },
      ];
      // A row rewritten busy (no turn finished: no notice of the render's own joins these two).
      await writeRow(name(3), { status: 'busy' });
      await client.waitForStatus('fleet: work came back to 0000 · job 7e57ab1e waits: permission prompt', 15_000);
    } finally {
      await client.kill();
      sup.stop(0, 'test over');
      await done;
    }
  });
});

describe('tickDelay: a tick per wake while the fleet is quiet; under a burst, one per COALESCE_MS', () => {
  const times = (n: number, last: number, gap = 20) => Array.from({ length: n }, (_, i) => last - (n - 1 - i) * gap);
  it.each([
    ['no wake in the last second', 10_000, [], 9_000, DEBOUNCE_MS],
    ['wakes older than a second', 10_000, times(20, 8_999), 9_000, DEBOUNCE_MS],
    [`${BUSY_WAKES} wakes in the last second: still one tick each`, 10_000, times(BUSY_WAKES, 10_000), 9_900, DEBOUNCE_MS],
    ['a quiet fleet, the last tick just begun: WAKE_GAP_MS after it', 10_000, times(2, 10_000), 10_000, WAKE_GAP_MS],
    [`${BUSY_WAKES + 1} wakes, the last tick just begun: COALESCE_MS after it`, 10_000, times(BUSY_WAKES + 1, 10_000), 10_000, COALESCE_MS],
    [`${BUSY_WAKES + 1} wakes, the last tick 100 ms ago`, 10_000, times(BUSY_WAKES + 1, 10_000), 9_900, COALESCE_MS - 100],
    [`${BUSY_WAKES + 1} wakes, the last tick long enough ago`, 10_000, times(BUSY_WAKES + 1, 10_000), 9_000, DEBOUNCE_MS],
  ])('%s', (_what, now, wakes, lastTickAt, want) => {
    expect(tickDelay(now, wakes, lastTickAt)).toBe(want);
  });
});
