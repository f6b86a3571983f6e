// The dashboard's keys for a long list and for prompting an agent, pressed on
// a real server and read through a real attached client: `s` sends a prompt
// to the selected row's Driver (and shows a refusal), `a` shows and hides the
// archived tasks, `R` groups the rows by repository.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { git, initRepo } from '../helpers/git';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { exportFleetEnv } from '../helpers/supervisor';
import { attachStatusClient, sq, startServer, type StatusClient, type TestServer } from '../helpers/tmux-server';

describe('dashboard keys on a real attached client', () => {
  let server: TestServer;
  let fenv: FleetEnv;
  let client: StatusClient;
  let prompts: string;

  const fleet = (args: string[], cwd?: string) => runFleet(args, { env: fenv.env, cwd });
  const press = (...keys: string[]) => server.run(['send-keys', '-t', '=dash:', ...keys]);
  const screen = () => client.screen();
  /** The table lines (the title and the header left out). */
  const table = async () => (await screen()).split('\n').slice(2).filter((l) => /^ {2}\S/.test(l));

  beforeAll(async () => {
    server = await startServer();
    fenv = await makeFleetEnv(server.name);
    await exportFleetEnv(server, fenv);
    prompts = join(fenv.root, 'prompts.jsonl');
    const cmd = `env STAND_IN_PROMPTS=${sq(prompts)} ${sq(process.execPath)} ${sq(STAND_IN)}`;
    // Two repositories: zeta holds one task, alpha two (one of them archived).
    for (const [name, slugs] of [['zeta', ['z1']], ['alpha', ['a1', 'a2', 'old']]] as const) {
      const repo = join(fenv.root, name);
      await initRepo(repo, 'f.txt', 'x\n', 'first');
      for (const slug of slugs) {
        const r = await fleet(['spawn', slug, '--worktree', '--cmd', cmd], repo);
        expect(r.exitCode, r.stderr).toBe(0);
      }
    }
    await waitFor(async () => (await fleet(['tasks', '--json'])).stdout.split('"verdict":0').length === 5, 'four Drivers stamped', 20_000);
    const done = await fleet(['done', 'old', '--yes', '--force']);
    expect(done.exitCode, done.stderr).toBe(0);
    await git(join(fenv.root, 'alpha'), 'branch', '-q', '-D', 'fleet/old');
    await server.newSession('dash', [process.execPath, FLEET_BIN, 'dashboard']);
    client = await attachStatusClient(server, 'dash', 120);
    await client.waitForStatus(/z1[\s\S]*a2|a2[\s\S]*z1/, 15_000, true);
  });

  afterAll(async () => {
    await client?.kill();
    await server?.kill();
    await fenv?.cleanup();
  });

  it('shows each task\'s repository and branch; archived tasks hidden until a, hidden again on a', async () => {
    const lines = await table();
    expect(lines.some((l) => /^ {2}z1\s.*\szeta\s+fleet\/z1\b/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {2}old\s/.test(l))).toBe(false);
    expect(await screen()).toMatch(/tmux-fleet · 3 tasks,/);
    await press('a');
    await waitFor(async () => (await table()).some((l) => /^ {2}old\s.*\sarchived\s/.test(l)), 'the archived task shown', 10_000);
    expect(await screen()).toMatch(/tmux-fleet · 4 tasks \(1 archived\),/);
    await press('a');
    await waitFor(async () => !(await table()).some((l) => /^ {2}old\s/.test(l)), 'the archived task hidden again', 10_000);
  });

  it('b groups the rows by repository: alpha\'s tasks together, its name on the first of them', async () => {
    await press('b');
    await waitFor(async () => (await screen()).includes('· by repository'), 'grouped', 10_000);
    const tasks = (await table()).filter((l) => /^ {2}(a1|a2|z1)\s/.test(l));
    expect(tasks.map((l) => l.trim().split(/\s+/)[0])).toEqual(['a1', 'a2', 'z1']);
    expect(tasks[0]).toMatch(/\salpha\s+fleet\/a1\b/);
    expect(tasks[1]).not.toMatch(/\salpha\s/);
    expect(tasks[2]).toMatch(/\szeta\s+fleet\/z1\b/);
    await press('b');
    await waitFor(async () => !(await screen()).includes('· by repository'), 'not grouped', 10_000);
  });

  it('s sends a prompt typed on the bottom line to the selected task\'s Driver; Esc drops one', async () => {
    // Select z1 (rows are in slug order here: a1, a2, z1).
    await waitFor(async () => {
      const lines = (await client.screen()).split('\n');
      const sel = lines.find((l) => /^ {2}z1\s/.test(l));
      if (sel && (await server.run(['capture-pane', '-p', '-e', '-t', '=dash:'])).split('\n').some((l) => l.includes('\x1b[7m') && l.includes('z1 '))) return true;
      await press('j');
      return false;
    }, 'z1 selected', 10_000, 300);
    await press('s');
    await client.waitForStatus(/send to z1 \(Enter sends, Esc drops\):/, 5000, true);
    await server.run(['send-keys', '-t', '=dash:', '-l', 'dropped text']);
    await press('Escape');
    await client.waitForStatus(/nothing sent/, 5000, true);
    await press('s');
    await server.run(['send-keys', '-t', '=dash:', '-l', 'hello from the dashboard']);
    await client.waitForStatus(/send to z1 .*: hello from the dashboard/, 5000, true);
    await press('Enter');
    await client.waitForStatus(/sent to z1 in op-z1/, 15_000, true);
    const taken = (await readFile(prompts, 'utf8')).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    expect(taken).toEqual(['hello from the dashboard']);
  });

  it('s to a Driver that waits for an approval shows the refusal, and types nothing', async () => {
    await server.run(['send-keys', '-t', '=op-z1:', '/status waiting permission prompt', 'Enter']);
    await waitFor(async () => (await fleet(['attention'])).stdout.includes('z1 waits'), 'z1 waiting', 10_000);
    await press('s');
    await server.run(['send-keys', '-t', '=dash:', '-l', 'yes']);
    await press('Enter');
    await client.waitForStatus(/the Driver of z1: it waits \(permission prompt\); a prompt typed now would answer it/, 15_000, true);
    const taken = (await readFile(prompts, 'utf8')).split('\n').filter(Boolean);
    expect(taken).toHaveLength(1);
  });
});
