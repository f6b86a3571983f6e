// Background jobs on a real tmux server: registry rows written by the test for
// live processes (a waiting job, a busy job, a spare, a parked tab and an agent
// outside any task, both in panes), @fleet-agent-cmd set to a script that
// records its argv. The supervisor's @fleet-attention and its toast, read
// through an attached client; `attention --jump`; the dashboard's l, x and
// Enter on job rows.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { attachStatusClient, sq, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

let server: TestServer;
let fenv: FleetEnv;
let supervisor: RunningSupervisor;
let client: StatusClient;
let record: string;
const sleepers: ChildProcess[] = [];
const rowFiles = new Map<string, string>();

const WAITING = 'e9e4ae8e';
const BUSY = '45a15a22';
const PARKED = '7a7a7a7a';
const SPARE = 'feed0000';
const now = Date.now();

/** A live process for a row to name. */
function sleeper(): number {
  const p = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
  sleepers.push(p);
  return p.pid as number;
}

async function writeRow(key: string, row: Record<string, unknown>): Promise<void> {
  const file = join(fenv.registry, `${row.pid as number}.json`);
  rowFiles.set(key, file);
  await writeFile(`${file}.tmp`, JSON.stringify(row));
  await rm(file, { force: true });
  await writeFile(file, JSON.stringify(row));
  await rm(`${file}.tmp`, { force: true });
}

const jobRow = (pid: number, jobId: string, over: Record<string, unknown> = {}) => ({
  pid,
  sessionId: `${jobId}-ce05-4a4a-8b8b-0123456789ab`,
  cwd: '/work/jobs',
  startedAt: now - 300_000,
  kind: 'bg',
  jobId,
  name: jobId,
  ...over,
});

const panePid = async (session: string) => Number((await server.run(['display-message', '-p', '-t', `=${session}:`, '#{pane_pid}'])).trim());
/** An option as the session sees it: its own, else the global one (the fleet's attention is global). */
const opt = async (session: string, name: string) => (await server.run(['show-options', '-qvA', '-t', `=${session}:`, name])).trim();
const recorded = async () => (await readFile(record, 'utf8').catch(() => '')).split('\n').filter(Boolean);
const clientSession = async () => (await server.run(['list-clients', '-F', '#{session_name}'])).trim();
const screenOf = (session: string) => server.run(['capture-pane', '-p', '-t', `=${session}:`]);

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  record = join(fenv.root, 'agent-argv');
  // The agent command: records its argv; `logs` prints, `stop` removes the job's row, `attach` stays.
  const agent = join(fenv.root, 'fake-claude');
  await writeFile(
    agent,
    [
      '#!/bin/sh',
      `printf '%s\\n' "$*" >> ${sq(record)}`,
      'case "$1" in',
      '  logs) printf "\\033[32mline one of %s\\033[0m\\ntool: Bash\\n" "$2" ;;',
      `  stop) grep -l "\\"jobId\\":\\"$2\\"" ${sq(fenv.registry)}/*.json | xargs rm -f; echo stopped ;;`,
      '  attach) sleep 600 ;;',
      'esac',
      '',
    ].join('\n'),
  );
  await chmod(agent, 0o755);
  await server.tmux.chain([
    ['set-option', '-g', '@fleet-agent-cmd', agent],
    ['set-option', '-g', 'status-left', '[#{@fleet-attention}]'],
    ['set-option', '-g', 'status-left-length', '150'],
    ['set-option', '-g', 'status-right', ''],
  ]);
  await server.newSession('work');
  await server.newSession('scratch');
  await server.newSession('loose');

  await writeRow('waiting', jobRow(sleeper(), WAITING, { status: 'waiting', waitingFor: 'approve Edit', statusUpdatedAt: now - 120_000 }));
  await writeRow('busy', jobRow(sleeper(), BUSY, { status: 'busy', statusUpdatedAt: now - 60_000 }));
  await writeRow('spare', jobRow(sleeper(), SPARE, { spare: true, agent: 'claude' }));
  await writeRow('parked', jobRow(sleeper(), PARKED, { status: 'busy' }));
  await writeRow('tab', { pid: await panePid('scratch'), sessionId: 'a7ffa1f6-1111-4111-8111-111111111111', cwd: '/work/tab', startedAt: now, kind: 'interactive', status: 'idle', parkedJobId: PARKED });
  await writeRow('loose', { pid: await panePid('loose'), sessionId: 'c0ffee00-2222-4222-8222-222222222222', cwd: '/work/loose', startedAt: now, kind: 'interactive', status: 'busy' });

  supervisor = await startSupervisor(server, fenv);
  client = await attachStatusClient(server, 'work', 160);
});

afterAll(async () => {
  await client?.kill();
  await supervisor?.stop().catch(() => undefined);
  await server?.kill();
  for (const p of sleepers) p.kill();
  await fenv?.cleanup();
});

describe('attention across the fleet', () => {
  it('shows how many agents wait, the same in every session', async () => {
    const want = '#[fg=black,bg=yellow,bold] ! 1 waiting #[default]';
    await waitFor(async () => (await opt('work', '@fleet-attention')) === want, '@fleet-attention on work', 15_000);
    for (const s of ['keeper', 'scratch', 'loose']) expect(await opt(s, '@fleet-attention')).toBe(want);
    await client.waitForStatus('[ ! 1 waiting ]', 10_000);
  });

  it('toasts a new wait once on the attached client, and counts it', async () => {
    await writeRow('busy', jobRow(Number(rowFiles.get('busy')!.match(/(\d+)\.json$/)![1]), BUSY, { status: 'waiting', waitingFor: 'approve Bash', statusUpdatedAt: Date.now() }));
    await client.waitForStatus(`fleet: job ${BUSY} waits: approve Bash`, 15_000);
    await waitFor(async () => (await opt('keeper', '@fleet-attention')).includes('! 2 waiting'), 'two waiting', 15_000);
  });

  it('attention --jump opens the longest-waiting job in a window of @fleet-jobs-session', async () => {
    const list = await runFleet(['attention'], { env: fenv.env });
    expect(list.stdout.trim().split('\n')).toEqual([`job ${WAITING} waits: approve Edit`, `job ${BUSY} waits: approve Bash`]);
    const name = (await server.run(['list-clients', '-F', '#{client_name}'])).trim();
    const r = await runFleet(['attention', '--jump', '--client', name], { env: fenv.env });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(`job ${WAITING}: opened in fleet-jobs`);
    await waitFor(async () => (await recorded()).includes(`attach ${WAITING}`), 'attach recorded', 10_000);
    expect(await clientSession()).toBe('fleet-jobs');
    expect((await server.run(['list-windows', '-t', '=fleet-jobs:', '-F', '#{window_name}'])).trim()).toBe(`job-${WAITING}`);
  });
});

describe('the dashboard with background jobs', () => {
  beforeAll(async () => {
    await server.newSession('dash', [process.execPath, FLEET_BIN, 'dashboard']);
    await server.run(['switch-client', '-t', '=dash:']);
  });

  it('lists waiting jobs first, the busy job, the parked tab with its job, the agent outside any task; no spare', async () => {
    const screen = await waitFor(async () => {
      const s = await screenOf('dash');
      return /agent c0ffee00/.test(s) ? s : null;
    }, 'dashboard drawn', 15_000);
    const lines = (screen as string).split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(at(`job ${WAITING}`)).toBeGreaterThan(0);
    expect(at(`job ${WAITING}`)).toBeLessThan(at(`job ${BUSY}`));
    expect(lines[at(`job ${WAITING}`)]).toMatch(/waiting: approve Edit\s+5m\s+\/work\/jobs/);
    expect(lines[at('tab a7ffa1f6')]).toMatch(/tab a7ffa1f6\s+scratch\s+.*a7ff → 7a7a\s+busy/);
    expect(lines[at('agent c0ffee00')]).toMatch(/agent c0ffee00\s+loose\s+.*busy/);
    expect(screen as string).not.toContain(SPARE);
    expect(screen as string).not.toContain(`job ${PARKED}`);
  });

  it("l shows a job's conversation from Claude Code's transcript as readable lines; any key goes back", async () => {
    // The transcript Claude Code writes for the job's session, under <config>/projects/<dir>/.
    const dir = join(fenv.claudeDir, 'projects', '-work-jobs');
    await mkdir(dir, { recursive: true });
    const transcript = (await readFile(join(ROOT, 'test', 'fixtures', 'transcript-job.jsonl'), 'utf8')).replaceAll('e9e4ae8e-ce05-4a4a-8b8b-0123456789ab', `${WAITING}-ce05-4a4a-8b8b-0123456789ab`);
    await writeFile(join(dir, `${WAITING}-ce05-4a4a-8b8b-0123456789ab.jsonl`), transcript);
    await server.run(['send-keys', '-t', '=dash:', 'l']);
    const screen = await waitFor(async () => {
      const s = await screenOf('dash');
      return s.includes(`job ${WAITING}: its conversation`) ? s : '';
    }, 'the conversation shown', 10_000);
    const lines = screen.split('\n');
    // The end of the conversation, as much as the screen holds.
    for (const want of ['  → Bash npm test -- login', '  ← error: 1 failing: redirects to /home expected /dashboard', '● One test fails: the redirect goes to /home.', '  I need approval to edit src/login.ts.']) {
      expect(lines, screen).toContain(want);
    }
    expect(await recorded()).not.toContain(`logs ${WAITING}`);
    await server.run(['send-keys', '-t', '=dash:', 'q']);
    await waitFor(async () => (await screenOf('dash')).includes('TASK'), 'table back', 10_000);
  });

  it('l on a job with no transcript: its recent terminal output (`<agent cmd> logs`), as lines without colours', async () => {
    await server.run(['send-keys', '-t', '=dash:', 'j']);
    await server.run(['send-keys', '-t', '=dash:', 'l']);
    await waitFor(async () => (await screenOf('dash')).includes(`line one of ${BUSY}`), 'logs shown', 10_000);
    expect(await screenOf('dash')).toContain(`job ${BUSY}: recent terminal output (no transcript under`);
    expect(await screenOf('dash')).toContain('tool: Bash');
    expect(await recorded()).toContain(`logs ${BUSY}`);
    await server.run(['send-keys', '-t', '=dash:', 'q']);
    await waitFor(async () => (await screenOf('dash')).includes('TASK'), 'table back', 10_000);
    await server.run(['send-keys', '-t', '=dash:', 'k']);
  });

  it('x asks, y stops the job: its row goes', async () => {
    await server.run(['send-keys', '-t', '=dash:', 'x']);
    await waitFor(async () => (await screenOf('dash')).includes(`stop background job ${WAITING}? (y/n)`), 'question', 10_000);
    expect(await recorded()).not.toContain(`stop ${WAITING}`);
    await server.run(['send-keys', '-t', '=dash:', 'y']);
    const row = new RegExp(`^ +job ${WAITING} `, "m");
    await waitFor(async () => (await screenOf('dash')).includes(`job ${WAITING} stopped`), 'stopped', 10_000);
    await waitFor(async () => !row.test(await screenOf('dash')), 'row gone', 10_000);
    expect(await recorded()).toContain(`stop ${WAITING}`);
  });

  it('Enter on a job opens `<agent cmd> attach <id>` in a new window and switches the client there', async () => {
    const lines = (await screenOf('dash')).split('\n');
    expect(lines.findIndex((l) => l.includes(`job ${BUSY}`))).toBe(2); // the first row: it waits
    await server.run(['send-keys', '-t', '=dash:', 'Enter']);
    await waitFor(async () => (await recorded()).includes(`attach ${BUSY}`), 'attach recorded', 10_000);
    await waitFor(async () => (await clientSession()) === 'fleet-jobs', 'client on fleet-jobs', 10_000);
    const windows = (await server.run(['list-windows', '-t', '=fleet-jobs:', '-F', '#{window_name} #{window_active}'])).trim().split('\n');
    expect(windows).toEqual([`job-${WAITING} 0`, `job-${BUSY} 1`]);
  });
});
