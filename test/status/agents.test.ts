// The dashboard's rows and keys, pure: tasks, parked tabs, jobs (spares
// skipped), agents outside any task; rows that need the user first; every key
// of a chunk handled in order; the OWNER column names the task's owner, as the
// status line does.
import { describe, expect, it } from 'vitest';
import type { PaneAgent } from '../../src/ownership/pane-agents';
import { HopTracker } from '../../src/registry/hop';
import { renderAgent } from '../../src/status/hop-text';
import type { LiveRow } from '../../src/registry/liveness';
import type { RegistryRow } from '../../src/registry/schema';
import { dashboardRows, type DashboardRow } from '../../src/dashboard/rows';
import { fleetAgents, fleetWaiters } from '../../src/status/agents';
import { agentJobArgv, assertJobId, openJobCommands, plainLines } from '../../src/dashboard/jobs';
import { DashboardKeys, splitKeys } from '../../src/dashboard/keys';
import { agentSegment, attentionSegment, ownerSegment, stylesFrom } from '../../src/status/segments';
import { computeView } from '../../src/fleet/view';
import type { FleetData } from '../../src/fleet/data';
import type { SessionSnap, TmuxSnapshot } from '../../src/tmux/snapshot';
import { sessionSnap } from '../helpers/snapshot';

const OWNER = '49a6ca67-1111-4111-8111-111111111111';
const REVIEWER = '7f244ea1-2222-4222-8222-222222222222';
const TAB = 'a7ffa1f6-3333-4333-8333-333333333333';
const LOOSE = 'c0ffee00-4444-4444-8444-444444444444';
const T0 = Date.parse('2026-12-01T02:00:00Z');

const live = (row: Partial<RegistryRow> & { pid: number; sessionId: string }): LiveRow => ({ row: row as RegistryRow, liveness: 'live', alive: true });

function session(name: string, stamp: string, task = ''): SessionSnap {
  return sessionSnap(name, { created: String(T0 / 1000), stamp, task });
}

function fleet(rows: LiveRow[], sessions: SessionSnap[]) {
  const snap: TmuxSnapshot = { sessions, clients: [], panes: [], config: {} };
  const data: FleetData = {
    tasks: [{ slug: 'fix-login', file: '/x/task.json', task: { slug: 'fix-login', driverSid: OWNER, createdAt: new Date(T0).toISOString(), cwd: '/work/app' } }],
    registry: { dir: '/reg', readable: true, entries: [], malformed: 0 },
    rows,
    recorded: new Map(),
    signals: new Map(),
  };
  return { snap, data, view: computeView(snap, data, new HopTracker()) };
}

const tabRow = live({ pid: 101, sessionId: TAB, kind: 'interactive', status: 'idle', parkedJobId: '45a15a22', cwd: '/work/a', startedAt: T0 });
const parkedJob = live({ pid: 102, sessionId: '45a15a22-aaaa', kind: 'bg', jobId: '45a15a22', status: 'busy', cwd: '/work/a', startedAt: T0 });
const waitingJob = live({
  pid: 103,
  sessionId: 'e9e4ae8e-bbbb',
  kind: 'bg',
  jobId: 'e9e4ae8e',
  status: 'waiting',
  waitingFor: 'approve Bash',
  needs: 'Approve running rm -rf node_modules in /work/b before it can go on',
  cwd: '/work/b',
  startedAt: T0,
  statusUpdatedAt: T0 + 60_000,
});
const spare = live({ pid: 104, sessionId: 'feed0000-cccc', kind: 'bg', jobId: 'feed0000', spare: true, name: 'feed0000', startedAt: T0 });
const loose = live({ pid: 105, sessionId: LOOSE, kind: 'interactive', status: 'busy', cwd: '/work/c', startedAt: T0 });
const driver = live({ pid: 106, sessionId: OWNER, kind: 'interactive', status: 'busy', cwd: '/work/app', startedAt: T0 });
const deadJob = { row: { pid: 107, sessionId: 'dead0000-dddd', kind: 'bg', jobId: 'dead0000', status: 'waiting' } as RegistryRow, liveness: 'gone' as const, alive: false };

describe('a job whose state file says what it needs (docs/hop.md#what-a-wait-is)', () => {
  const jobState = (tempo: string, needs: string | null) => ({
    jobId: '5a5a5a5a',
    state: 'working',
    tempo,
    needs,
    detail: null,
    intent: 'slowly read the disk',
    name: 'Slowly read the disk',
    sessionId: '5a5a5a5a-eeee',
    updatedAt: null,
  });
  const jobRow = (status: string | undefined, tempo: string, needs: string | null): LiveRow => ({
    ...live({ pid: 108, sessionId: '5a5a5a5a-eeee', kind: 'bg', jobId: '5a5a5a5a', ...(status ? { status } : {}), cwd: '/work/d', startedAt: T0 }),
    job: jobState(tempo, needs),
  });

  it.each([
    ['its row idle, blocked: approve Bash', 'idle', 'blocked', 'approve Bash: ls -la /', true],
    ['its row with no status, blocked: send a prompt to start', undefined, 'blocked', 'send a prompt to start', true],
    ['its row busy, active', 'busy', 'active', null, false],
  ])('%s: the row named by its intent, first when it waits, counted for attention', (_what, status, tempo, needs, waits) => {
    const rows = [driver, jobRow(status, tempo, needs)];
    const { view } = fleet(rows, [session('op-fix-login', OWNER, 'fix-login')]);
    const agents = fleetAgents(view, rows, new Map());
    const table = dashboardRows(view, agents, T0 + 120_000, '/work');
    const job = table.find((r) => r.jobId === '5a5a5a5a') as DashboardRow;
    expect(job.task).toBe('job 5a5a5a5a · slowly read the disk');
    expect(job.reason).toContain('background job 5a5a5a5a · slowly read the disk');
    expect(job.attention).toBe(waits);
    expect(table[0] === job).toBe(waits);
    expect(job.agent).toBe(needs ?? 'busy');
    expect(fleetWaiters(view, agents).map((w) => `${w.who} waits: ${w.what}`)).toEqual(waits ? [`job 5a5a5a5a waits: ${needs}`] : []);
  });
});

describe('a stamped session outside any task whose parked job waits', () => {
  it('is counted for attention as its job, opened in that session', () => {
    const job: LiveRow = { ...parkedJob, row: { ...parkedJob.row, status: 'idle' }, job: { jobId: '45a15a22', state: 'blocked', tempo: 'blocked', needs: 'API unavailable — retry · API Error: 500', detail: null, intent: 'api error', name: null, sessionId: null, updatedAt: null } };
    const rows = [tabRow, job];
    const { view } = fleet(rows, [session('loose', TAB)]);
    const waiters = fleetWaiters(view, fleetAgents(view, rows, new Map()));
    expect(waiters.map((w) => [w.who, w.what, w.target])).toEqual([['job 45a15a22', 'API unavailable — retry · API Error: 500', { kind: 'job', jobId: '45a15a22', parkedBy: 'loose' }]]);
  });

  const waitingParked: LiveRow = { ...parkedJob, row: { ...parkedJob.row, status: 'waiting', waitingFor: 'permission prompt' } };
  it.each([
    ['bound to a task another session owns (it lost a takeover)', TAB, [driver], [['job 45a15a22', 'permission prompt', { kind: 'job', jobId: '45a15a22', parkedBy: 'bound' }]]],
    ["the task's Driver itself: once, under the task", OWNER, [], [['fix-login', 'permission prompt', { kind: 'job', jobId: '45a15a22', parkedBy: 'bound' }]]],
  ] as const)('a stamped session %s, whose parked job waits, is counted once', (_what, stamp, others, want) => {
    const rows = [...others, { ...tabRow, row: { ...tabRow.row, sessionId: stamp } }, waitingParked];
    const { view } = fleet(rows, [session('bound', stamp, 'fix-login')]);
    const waiters = fleetWaiters(view, fleetAgents(view, rows, new Map()));
    expect(waiters.map((w) => [w.who, w.what, w.target])).toEqual(want);
  });

  it('the work come back while its job still waits: the same wait (same key), so no new toast', () => {
    const parked = [driver, tabRow, waitingParked];
    const during = fleet(parked, [session('bound', TAB, 'fix-login')]);
    const back = [driver, { ...tabRow, row: { ...tabRow.row, status: 'busy', parkedJobId: undefined } }, waitingParked];
    const after = fleet(back, [session('bound', TAB, 'fix-login')]);
    const keys = (f: ReturnType<typeof fleet>, rows: LiveRow[]) => fleetWaiters(f.view, fleetAgents(f.view, rows, new Map())).map((w) => w.key);
    expect(keys(during, parked)).toEqual([`45a15a22-aaaa\0permission prompt`]);
    expect(keys(after, back)).toEqual(keys(during, parked));
  });
});

describe('dashboard rows against the registry', () => {
  const rows = [driver, tabRow, parkedJob, waitingJob, spare, loose, deadJob];
  const { view } = fleet(rows, [session('op-fix-login', OWNER, 'fix-login'), session('shell', '')]);
  const panes = new Map<string, PaneAgent[]>([
    ['scratch', [{ row: tabRow.row, kind: 'claude', firstStampOnly: false, session: 'scratch', pane: '%7', depth: 1 }]],
    ['notes', [{ row: loose.row, kind: 'claude', firstStampOnly: false, session: 'notes', pane: '%9', depth: 0 }]],
  ]);
  const agents = fleetAgents(view, rows, panes);
  const table = dashboardRows(view, agents, T0 + 120_000, '/work');

  it('lists the task, the parked tab with its job, the job, the agent outside any task; no spare, no dead row', () => {
    expect(table.map((r) => [r.kind, r.task, r.session])).toEqual([
      ['job', 'job e9e4ae8e', null],
      ['task', 'fix-login', 'op-fix-login'],
      ['parked', 'tab a7ffa1f6', 'scratch'],
      ['agent', 'agent c0ffee00', 'notes'],
    ]);
    const parked = table.find((r) => r.kind === 'parked') as DashboardRow;
    expect(parked).toMatchObject({ jobId: '45a15a22', parkedBy: 'scratch', agent: 'busy', hop: 'a7ff → 45a1', dir: '~/a' });
  });

  it('puts the job that waits first, with its needs sentence, directory and age', () => {
    expect(table[0]).toMatchObject({ attention: true, jobId: 'e9e4ae8e', dir: '~/b', age: '2m' });
    expect(table[0]!.agent).toBe('Approve running rm -rf node_modules in /work/b before it can go on');
    expect(table.slice(1).every((r) => !r.attention)).toBe(true);
  });

  it('counts the waiting job once for attention, and a task whose Driver waits', () => {
    expect(fleetWaiters(view, agents).map((w) => [w.who, w.target.kind])).toEqual([['job e9e4ae8e', 'job']]);
    const waitingDriver = live({ ...driver.row, status: 'waiting', waitingFor: 'approve Edit', statusUpdatedAt: T0 } as RegistryRow & { pid: number; sessionId: string });
    const again = fleet([waitingDriver, waitingJob], [session('op-fix-login', OWNER, 'fix-login')]);
    const waiters = fleetWaiters(again.view, fleetAgents(again.view, again.data.rows, new Map()));
    expect(waiters.map((w) => `${w.who} waits: ${w.what}`)).toEqual([
      'fix-login waits: approve Edit',
      'job e9e4ae8e waits: Approve running rm -rf node_modules in /work/b before it can go on',
    ]);
    expect(attentionSegment(waiters.length, stylesFrom({}))).toBe('#[fg=black,bg=yellow,bold] ! 2 waiting #[default]');
    expect(attentionSegment(0, stylesFrom({}))).toBe('');
  });

  it("jobsOnly (the supervisor's count): the parked tab and the jobs alone, the same waiters as the whole list", () => {
    const jobs = fleetAgents(view, rows, panes, undefined, true);
    expect(jobs.map((a) => [a.kind, a.jobId])).toEqual([
      ['parked', '45a15a22'],
      ['job', 'e9e4ae8e'],
    ]);
    expect(fleetWaiters(view, jobs)).toEqual(fleetWaiters(view, agents));
  });
});

describe('the OWNER column and the status line name the same owner', () => {
  it('a second session bound to the task shows the task owner, not its own stamp', () => {
    const { view } = fleet([driver, live({ pid: 108, sessionId: REVIEWER, kind: 'interactive', status: 'idle' })], [
      session('op-fix-login', OWNER, 'fix-login'),
      session('review-fix-login', REVIEWER, 'fix-login'),
    ]);
    const review = view.sessions.find((s) => s.session === 'review-fix-login')!;
    const status = ownerSegment(review.slug!, review.decision!, stylesFrom({}));
    const row = dashboardRows(view, [], T0).find((r) => r.session === 'review-fix-login')!;
    expect(status).toContain('fix-login: owner op-fix-login (49a6ca67) live');
    expect(row.owner).toBe('49a6ca67');
    expect(status).toContain(`(${row.owner})`);
    expect(row.verdict).toBe('9 other');
  });
});

describe("the bottom line speaks to whoever looks", () => {
  it('a task and a session bound to it: "you" only for the Driver, else the Driver by its session', () => {
    const { view } = fleet([driver, live({ pid: 108, sessionId: REVIEWER, kind: 'interactive', status: 'idle' })], [
      session('main', ''),
      session('op-fix-login', OWNER, 'fix-login'),
      session('review-fix-login', REVIEWER, 'fix-login'),
    ]);
    const rows = (viewer: string) => dashboardRows(view, [], T0, '/work', viewer);
    const task = (viewer: string) => rows(viewer).find((r) => r.kind === 'task')!.reason;
    const review = (viewer: string) => rows(viewer).find((r) => r.session === 'review-fix-login')!.reason;
    const named = 'task fix-login: Driver: op-fix-login (49a6ca67), live; to take over on purpose: tmux-fleet takeover fix-login --force (refused without it while that session may be live)';
    // Opened from main (no stamp), or from the reviewer's session: the Driver, named; never "you".
    expect(task('')).toBe(named);
    expect(task(REVIEWER)).toBe(named);
    expect(review('')).toBe(named);
    // Opened from the Driver's own session.
    expect(task(OWNER)).toBe('task fix-login: you are its Driver');
    expect(review(OWNER)).toBe('task fix-login: you are its Driver');
  });
});

describe('#{fleet_agent} with a needs sentence', () => {
  it('shows the sentence cut to 40 characters, else waitingFor as before', () => {
    const hop = (needs: string | null) => ({ agent: { sessionId: 'x', status: 'waiting', waitingFor: 'approve Bash', needs, alive: true } });
    const styles = stylesFrom({});
    const long = 'Approve running rm -rf node_modules in /work/b before it can go on';
    const seg = agentSegment(hop(long).agent, styles);
    expect(seg).toBe('#[fg=black,bg=yellow,bold] ! Approve running rm -rf node_modules in… #[default]');
    expect([...'Approve running rm -rf node_modules in…'].length).toBeLessThanOrEqual(40);
    expect(agentSegment(hop(null).agent, styles)).toContain('waiting: approve Bash');
    expect(renderAgent({ sessionId: 'x', status: 'idle', waitingFor: null, needs: 'Pick a branch', alive: true })).toBe('Pick a branch');
  });
});

describe('dashboard keys', () => {
  const row = (over: Partial<DashboardRow>): DashboardRow => ({
    kind: 'task',
    session: null,
    task: 't',
    owner: '-',
    verdict: '-',
    hop: '',
    agent: '',
    age: '-',
    dir: '-',
    slug: null,
    jobId: null,
    parkedBy: null,
    ownerGone: false,
    attention: false,
    since: 0,
    reason: '',
    ...over,
  });
  const rows = [
    row({ task: 'aaa', session: 'op-aaa', slug: 'aaa' }),
    row({ task: 'bbb', session: 'op-bbb', slug: 'bbb', ownerGone: true }),
    row({ task: 'ccc', session: 'op-ccc', slug: 'ccc' }),
    row({ kind: 'job', task: 'job 45a15a22', jobId: '45a15a22', parkedBy: 'op-aaa' }),
  ];

  it('splits a chunk into keys, arrows whole', () => {
    expect(splitKeys('jj\r')).toEqual(['j', 'j', '\r']);
    expect(splitKeys('\x1b[B\x1b[Ak\x1b')).toEqual(['\x1b[B', '\x1b[A', 'k', '\x1b']);
  });

  it('handles every key of a chunk in order: "jj\\r" chooses the third row', () => {
    const keys = new DashboardKeys(rows);
    expect(keys.feed('jj\r')).toEqual([{ type: 'switch', session: 'op-ccc' }]);
    expect(keys.selected).toBe(2);
    expect(keys.feed('kk')).toEqual([]);
    expect(keys.selected).toBe(0);
    keys.feed('\x1b[B\x1b[B\x1b[B');
    expect(keys.current()?.task).toBe('job 45a15a22');
  });

  it('Enter on a task whose parked work waits opens its job (the wait is answered there); while it does not wait, switches to the session', () => {
    const following = row({ kind: 'task', task: 'tp', slug: 'tp', session: 'op-tp', jobId: '44a236dc', parkedBy: 'op-tp' });
    expect(new DashboardKeys([{ ...following, attention: true }]).feed('\r')).toEqual([{ type: 'attach', jobId: '44a236dc', parkedBy: 'op-tp' }]);
    expect(new DashboardKeys([following]).feed('\r')).toEqual([{ type: 'switch', session: 'op-tp' }]);
  });

  it('Enter opens a job, l shows its output, x stops it only after y', () => {
    const keys = new DashboardKeys(rows);
    keys.feed('G');
    expect(keys.feed('\r')).toEqual([{ type: 'attach', jobId: '45a15a22', parkedBy: 'op-aaa' }]);
    expect(keys.feed('l')).toEqual([{ type: 'logs', jobId: '45a15a22' }]);
    expect(keys.feed('x')).toEqual([]);
    expect(keys.statusLine()).toBe('stop background job 45a15a22? (y/n)');
    expect(keys.feed('n')).toEqual([]);
    expect(keys.feed('xy')).toEqual([{ type: 'stop', jobId: '45a15a22' }]);
    keys.feed('g');
    expect(keys.feed('x')).toEqual([]);
    expect(keys.statusLine()).toContain('no background job');
  });

  it('r restores a task whose Driver is gone, refreshes elsewhere; R restores every such task, on any row', () => {
    const keys = new DashboardKeys(rows);
    expect(keys.feed('r')).toEqual([{ type: 'refresh' }]);
    expect(keys.feed('jr')).toEqual([{ type: 'restore', slugs: ['bbb'] }]);
    expect(keys.feed('GR')).toEqual([{ type: 'restore', slugs: null }]);
  });

  it('/ filters as you type; Enter keeps the filter, Esc clears it', () => {
    const keys = new DashboardKeys(rows);
    keys.feed('/job');
    expect(keys.statusLine()).toBe('/job');
    expect(keys.rows.map((r) => r.task)).toEqual(['job 45a15a22']);
    expect(keys.feed('\r')).toEqual([]);
    expect(keys.filtering).toBe(false);
    expect(keys.feed('\r')).toEqual([{ type: 'attach', jobId: '45a15a22', parkedBy: 'op-aaa' }]);
    keys.feed('/\x7f\x7f\x7fbb\x1b');
    expect(keys.rows).toHaveLength(4);
    expect(keys.feed('q')).toEqual([{ type: 'quit' }]);
  });
});

describe('job commands', () => {
  it('validates the job id and runs the agent command with it as an argument', () => {
    expect(agentJobArgv('claude', 'attach', '45a15a22')).toEqual(['/bin/sh', '-c', 'exec claude "$@"', 'tmux-fleet-agent', 'attach', '45a15a22']);
    for (const bad of ['', '45a1;rm', '../x', 'a b', 'x'.repeat(65)]) expect(() => assertJobId(bad)).toThrow(/not a background job id/);
    expect(() => agentJobArgv('claude\nrm', 'stop', '45a15a22')).toThrow(/control character/);
  });

  it('opens a new window in an existing session, else a new detached session', () => {
    const argv = ['/bin/sh', '-c', 'x'];
    const mark = ['set-option', '-w', '@fleet-job', '45a1'];
    expect(openJobCommands('op-aaa', true, argv, '45a1')).toEqual([['new-window', '-t', '=op-aaa:', '-n', 'job-45a1', ...argv], mark]);
    expect(openJobCommands('fleet-jobs', false, argv, '45a1')).toEqual([['new-session', '-d', '-s', 'fleet-jobs', '-n', 'job-45a1', ...argv], mark]);
  });

  it('drops escape sequences from a job output', () => {
    expect(plainLines('\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07ok\n')).toEqual(['red', 'ok']);
    // A TUI's redraw (what `claude logs` prints): cursor moves become line breaks, not one run-together line;
    // cursor-forward a space; blank and repeated lines collapse.
    expect(plainLines('\x1b7\x1b8\x1b[1;1H╭─ box\x1b[2;1H│ > write a haiku\x1b[3;1H\x1b[K\x1b[4;1H  esc to\x1b[1Cinterrupt\x1b[4;1H  esc to\x1b[1Cinterrupt')).toEqual([
      '╭─ box',
      '│ > write a haiku',
      '  esc to interrupt',
    ]);
  });
});
