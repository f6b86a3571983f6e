// What wakes the supervisor: the session hooks' command never lets tmux run
// part of a path (a fleet home holding `#(...)` or a quote), and without
// hooks the poll still sees a new session.
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nudgeHookCommand, Wakes } from '../../src/status/wakes';
import { makeTempDir } from '../helpers/env';
import { makeFleetEnv, waitFor, type FleetEnv } from '../helpers/env';
import { startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { startServer, type TestServer } from '../helpers/tmux-server';

describe('nudgeHookCommand', () => {
  it.each<[string, string, string | null]>([
    ['a plain path', '/h/run/nudge-abc', `run-shell -b 'touch "/h/run/nudge-abc"'`],
    ['spaces are kept in quotes', '/home/J Smith/run/n', `run-shell -b 'touch "/home/J Smith/run/n"'`],
    ['# is doubled: run-shell expands formats', '/h/#(touch x)/n', `run-shell -b 'touch "/h/##(touch x)/n"'`],
    ['a double quote, a backslash, a dollar and a backquote are escaped for sh', '/h/a"b\\c$d`e/n', "run-shell -b 'touch \"/h/a\\\"b\\\\c\\$d\\`e/n\"'"],
    ['a single quote: refused', "/h/a'b/n", null],
    ['a newline: refused', '/h/a\nb/n', null],
  ])('%s', (_name, path, want) => {
    expect(nudgeHookCommand(path)).toBe(want);
  });
});

describe('a fleet home whose path holds #(...) and a quote, on a real server', () => {
  let server: TestServer;
  let fenv: FleetEnv;
  let supervisor: RunningSupervisor | null = null;
  let marker: string;

  beforeAll(async () => {
    server = await startServer();
    fenv = await makeFleetEnv(server.name);
    marker = join(fenv.root, 'ran');
  });
  afterAll(async () => {
    await supervisor?.stop().catch(() => undefined);
    await server?.kill();
    await fenv?.cleanup();
  });

  it.each([
    ['#(...)', (m: string) => `home-#(touch ${m})`],
    ['a double quote, a dollar and a backslash', () => 'home-"q$HOME\\x'],
  ])('%s: nothing runs, and a new session is still seen', async (_name, name) => {
    await rm(marker, { force: true });
    await server.tmux.tryRun(['kill-session', '-t', '=late:']);
    const home = join(fenv.root, name(marker));
    await mkdir(join(home, 'tasks', 't1'), { recursive: true, mode: 0o700 });
    await writeFile(join(home, 'tasks', 't1', 'task.json'), JSON.stringify({ slug: 't1', driverSid: 'aaaa1111-0000-4000-8000-000000000001' }), { mode: 0o600 });
    supervisor = await startSupervisor(server, { ...fenv, home, env: { ...fenv.env, TMUX_FLEET_HOME: home } });
    // In one tmux command, as spawn makes it: the hook's wake must find the task already bound
    // (the poll looks at files and pids, not at tmux options).
    await server.tmux.chain([
      ['new-session', '-d', '-s', 'late', 'sleep 600'],
      ['set-option', '-t', '=late:', '@fleet-task', 't1'],
    ]);
    // The owner segment appears: the session-created hook touched the nudge file.
    await waitFor(async () => (await server.run(['show-options', '-qv', '-t', '=late:', '@fleet-owner'])).trim() !== '', 'the late session rendered', 15_000);
    expect(existsSync(marker)).toBe(false);
    await supervisor.stop();
    supervisor = null;
    await server.run(['kill-session', '-t', '=late:']);
  });
});

describe('the jobs of the rows: each job\'s directory watched, its state file polled', () => {
  async function setup(intervalMs: number) {
    const d = await makeTempDir();
    const registryDir = join(d.path, 'claude', 'sessions');
    const jobs = join(d.path, 'claude', 'jobs');
    await mkdir(registryDir, { recursive: true });
    await mkdir(join(jobs, '44a236dc'), { recursive: true });
    const woken: boolean[] = [];
    const wakes = new Wakes({ home: join(d.path, 'home'), registryDir, intervalMs }, { wake: (tmuxToo) => woken.push(tmuxToo), beforePoll: () => false, deathSeen: () => [] });
    return { d, jobs, wakes, woken };
  }

  it('stopped, nothing is watched again: a caller whose read was in flight cannot keep the process alive', async () => {
    const { d, wakes } = await setup(60_000);
    try {
      wakes.start();
      wakes.stop();
      // follow --watch's loop, its registry read done after its server went away.
      wakes.watchJobs(['44a236dc']);
      expect(wakes.watchedJobs()).toEqual([]);
    } finally {
      await d.cleanup();
    }
  });

  it('a state file written wakes without a tmux read; only job-id-shaped ids of the rows are watched, others closed', async () => {
    const { d, jobs, wakes, woken } = await setup(60_000);
    try {
      wakes.start();
      wakes.watchJobs(['44a236dc', '../x', 'a.b']);
      expect(wakes.watchedJobs()).toEqual(['44a236dc']);
      // A newly watched job asks for one more wake (its file may have changed before the watch).
      expect(woken).toEqual([false]);
      woken.length = 0;
      await writeFile(join(jobs, '44a236dc', 'timeline.jsonl'), '{}\n');
      await writeFile(join(jobs, '44a236dc', 'state.json'), JSON.stringify({ tempo: 'blocked', needs: 'approve Bash: ls -la /' }));
      await waitFor(() => woken.length > 0, 'a wake from the job directory', 5000);
      expect(woken.every((t) => t === false)).toBe(true);
      wakes.watchJobs([]);
      expect(wakes.watchedJobs()).toEqual([]);
    } finally {
      wakes.stop();
      await d.cleanup();
    }
  });

  it('a job whose directory appears after its row is watched by the poll, which also sees the state file change', async () => {
    const { d, jobs, wakes, woken } = await setup(100);
    try {
      wakes.start();
      wakes.watchJobs(['b0b0b0b0']);
      woken.length = 0;
      await mkdir(join(jobs, 'b0b0b0b0'));
      await writeFile(join(jobs, 'b0b0b0b0', 'state.json'), JSON.stringify({ tempo: 'active' }));
      await waitFor(() => woken.length > 0, 'a wake from the poll', 5000);
    } finally {
      wakes.stop();
      await d.cleanup();
    }
  });
});

describe('the task files the watches saw change', () => {
  it('named by slug; null (every file) at first and after a task directory is made', async () => {
    const d = await makeTempDir();
    const home = join(d.path, 'home');
    const tasks = join(home, 'tasks');
    await mkdir(join(tasks, 'alpha'), { recursive: true });
    await mkdir(join(tasks, 'beta'), { recursive: true });
    const woken: boolean[] = [];
    const wakes = new Wakes({ home, registryDir: join(d.path, 'registry'), intervalMs: 60_000 }, { wake: (tmuxToo) => woken.push(tmuxToo), beforePoll: () => false, deathSeen: () => [] });
    try {
      wakes.start();
      expect(wakes.takeTasksChanged()).toBeNull();
      expect(wakes.takeTasksChanged()).toEqual(new Set());
      await writeFile(join(tasks, 'beta', 'task.json.tmp'), '{}');
      await rename(join(tasks, 'beta', 'task.json.tmp'), join(tasks, 'beta', 'task.json'));
      await waitFor(() => woken.length > 0, 'a wake from the task directory', 5000);
      expect(woken.every((t) => t)).toBe(true);
      expect(wakes.takeTasksChanged()).toEqual(new Set(['beta']));
      woken.length = 0;
      await mkdir(join(tasks, 'gamma'));
      await waitFor(() => woken.length > 0, 'a wake from the tasks directory', 5000);
      expect(wakes.takeTasksChanged()).toBeNull();
      expect(wakes.takeTasksChanged()).toEqual(new Set());
    } finally {
      wakes.stop();
      await d.cleanup();
    }
  });
});

describe('the registry directory made after the supervisor started (Claude Code makes it at its first start)', () => {
  it.each([
    ['before the first poll', false],
    ['after a poll saw it missing', true],
  ])('made %s: a row rewritten in place (the directory itself unchanged) wakes with that file named', async (_name, pollFirst) => {
    const d = await makeTempDir();
    const registryDir = join(d.path, 'claude', 'sessions');
    const woken: boolean[] = [];
    let polls = 0;
    const wakes = new Wakes(
      { home: join(d.path, 'home'), registryDir, intervalMs: 50 },
      { wake: (tmuxToo) => woken.push(tmuxToo), beforePoll: () => (polls++, false), deathSeen: () => [] },
    );
    try {
      wakes.start();
      if (pollFirst) await waitFor(() => polls > 1, 'a poll with the directory missing', 5000);
      await mkdir(registryDir, { recursive: true });
      await writeFile(join(registryDir, '4242.json'), '{"status":"idle"}');
      // The poll starts the watch, and asks for one wake that reads every row.
      await waitFor(() => woken.length > 0, 'the wake of the watch started late', 5000);
      expect(wakes.takeRegistryChanged()).toBeNull();
      woken.length = 0;
      // In place, as Claude Code rewrites its row: the directory's own mtime does not move, only the watch sees it.
      await writeFile(join(registryDir, '4242.json'), '{"status":"busy"}');
      await waitFor(() => woken.length > 0, 'a wake for the row rewritten in place', 5000);
      expect([...(wakes.takeRegistryChanged() ?? [])]).toEqual(['4242.json']);
    } finally {
      wakes.stop();
      await d.cleanup();
    }
  });
});

describe('the poll', () => {
  it('a row renamed into place moves the directory: the watch named the file, so the poll asks for no read of every row', async () => {
    const d = await makeTempDir();
    const registryDir = join(d.path, 'claude', 'sessions');
    await mkdir(registryDir, { recursive: true });
    const woken: boolean[] = [];
    let polls = 0;
    const wakes = new Wakes({ home: join(d.path, 'home'), registryDir, intervalMs: 50 }, { wake: (tmuxToo) => woken.push(tmuxToo), beforePoll: () => (polls++, false), deathSeen: () => [] });
    try {
      wakes.start();
      await waitFor(() => polls > 1, 'a first poll', 5000);
      expect(wakes.takeRegistryChanged()).toBeNull();
      await writeFile(join(registryDir, '.4242.json.tmp'), '{"status":"busy"}');
      await rename(join(registryDir, '.4242.json.tmp'), join(registryDir, '4242.json'));
      await waitFor(() => woken.length > 0, 'the wake of the watch', 5000);
      const seen = polls;
      await waitFor(() => polls > seen + 1, 'two polls after the write', 5000);
      expect([...(wakes.takeRegistryChanged() ?? ['(every row)'])].filter((n) => !n.startsWith('.'))).toEqual(['4242.json']);
    } finally {
      wakes.stop();
      await d.cleanup();
    }
  });

  it('watched processes found gone: named for the next wake, which then judges their rows alone', async () => {
    const d = await makeTempDir();
    let died: number[] = [];
    const woken: boolean[] = [];
    const wakes = new Wakes({ home: join(d.path, 'home'), registryDir: join(d.path, 'registry'), intervalMs: 50 }, { wake: (tmuxToo) => woken.push(tmuxToo), beforePoll: () => false, deathSeen: () => died });
    try {
      wakes.start();
      expect(wakes.takeRegistryChanged()).toBeNull();
      died = [4242, 4343];
      await waitFor(() => woken.length > 0, 'a wake for the deaths', 5000);
      died = [];
      expect(woken[0]).toBe(false);
      expect([...wakes.takeDeaths()].sort()).toEqual([4242, 4343]);
      expect(wakes.takeRegistryChanged()).toEqual(new Set());
      expect(wakes.takeDeaths()).toEqual(new Set());
    } finally {
      wakes.stop();
      await d.cleanup();
    }
  });
});
