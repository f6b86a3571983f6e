// End to end: a stand-in agent in a stamped session whose task has a
// worktree spawns a child with --worktree from inside that session. The child's
// agent is told where its spawner works, in the last line of its launch prompt;
// its own worktree branches from the base and holds none of the parent's work;
// the parent's worktree is not touched.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, initRepo } from '../helpers/git';
import { pointerLine } from '../../src/pointer/pointer';
import type { Task } from '../../src/tasks';
import { makeTempDir, makeFleetEnv, runFleet, waitFor, type CliResult, type FleetEnv, type TempDir } from '../helpers/env';
import { STAND_IN } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const PARENT_SID = '5e1f0a2b-c3d4-4e5f-8a9b-0c1d2e3f4a5b';
const PARENT_LABEL = `parent's "label" $(id)`;


interface Received {
  argv: string[];
  task: string | null;
  cwd: string;
  pid: number;
}

let server: TestServer;
let fe: FleetEnv;
let tmp: TempDir;
let repo: string;
let parent: Task;
let parentPane: string;
let parentTmuxEnv: string;
/** The parent's worktree as it was before any child ran. */
let before: { status: string; head: string; files: Record<string, string> };

function standInCmd(env: Record<string, string>): string {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${sq(v)}`);
  return ['env', ...vars, sq(process.execPath), sq(STAND_IN)].join(' ');
}

function fleet(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<CliResult> {
  return runFleet(args, { cwd: opts.cwd, env: { ...fe.env, ...opts.env } });
}

async function readTask(slug: string): Promise<Task> {
  return JSON.parse(await readFile(join(fe.home, 'tasks', slug, 'task.json'), 'utf8')) as Task;
}

async function waitOwner(slug: string): Promise<string> {
  return waitFor(async () => (await readTask(slug).catch(() => null))?.driverSid || '', `owner of ${slug}`, 20_000);
}

async function waitRecord(file: string): Promise<Received> {
  // The stand-in writes its record with a plain write: an empty or half-written file is "not yet".
  const parsed = (text: string): Received | null => {
    try {
      return JSON.parse(text) as Received;
    } catch {
      return null;
    }
  };
  const got = await waitFor(async () => parsed(await readFile(file, 'utf8').catch(() => 'null')), `stand-in record ${file}`, 20_000);
  return got as Received;
}

async function treeFiles(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = join(prefix, e.name);
    if (e.name === '.git') continue;
    if (e.isDirectory()) Object.assign(out, await treeFiles(dir, rel));
    else out[rel] = await readFile(join(dir, rel), 'utf8');
  }
  return out;
}

async function snapshot(worktree: string) {
  return {
    status: await git(worktree, 'status', '--porcelain', '--untracked-files=all'),
    head: (await git(worktree, 'rev-parse', 'HEAD')).trim(),
    files: await treeFiles(worktree),
  };
}

beforeAll(async () => {
  server = await startServer();
  fe = await makeFleetEnv(server.name);
  tmp = await makeTempDir('fleet-e2e-');
  repo = join(tmp.path, 'my repo');
  await initRepo(repo, 'shared.txt', 'base\n', 'base');

  // The parent: spawned with --worktree from the repository, stamped by its stand-in.
  const rec = join(tmp.path, 'parent.json');
  const r = await fleet(
    ['spawn', 'parent', '--worktree', '--label', PARENT_LABEL, '--prompt', 'parent prompt', '--cmd', standInCmd({ STAND_IN_RECORD: rec, STAND_IN_SID: PARENT_SID })],
    { cwd: repo },
  );
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  expect(await waitOwner('parent')).toBe(PARENT_SID);
  parent = await readTask('parent');
  expect(parent.worktree).toBe(join(fe.home, 'worktrees', 'parent'));
  expect(parent.branch).toBe('fleet/parent');
  expect((await waitRecord(rec)).cwd).toBe(parent.worktree);

  // Its work in flight: a commit not merged anywhere, an edit and a new file not committed.
  const wt = parent.worktree as string;
  await writeFile(join(wt, 'committed-on-parent.txt'), 'UNMERGED-BODY-1c9e\n');
  await git(wt, 'add', 'committed-on-parent.txt');
  await git(wt, 'commit', '-qm', 'parent work');
  await writeFile(join(wt, 'shared.txt'), 'base\nparent edit in flight\n');
  await writeFile(join(wt, 'parent-wip.txt'), 'WIP-BODY-7f3a\n');
  before = await snapshot(wt);
  expect(before.status).toContain('?? parent-wip.txt');
  expect(before.status).toContain(' M shared.txt');

  // What the parent's agent would have in its environment.
  const info = (await server.run(['display-message', '-p', '-t', '=op-parent:', '#{pane_id}\t#{socket_path}\t#{pid}\t#{session_id}'])).trim().split('\t');
  parentPane = info[0] as string;
  parentTmuxEnv = `${info[1]},${info[2]},${(info[3] as string).replace(/^\$/, '')}`;
  expect(parentPane).toMatch(/^%\d+$/);
  expect((await server.run(['display-message', '-p', '-t', parentPane, '#{@claude_session_id}'])).trim()).toBe(PARENT_SID);
});

afterAll(async () => {
  await server?.kill();
  await fe?.cleanup();
  await tmp?.cleanup();
});

/** Spawns a child with --worktree and returns what its agent received. */
async function spawnChild(slug: string, extraArgs: string[], env: Record<string, string | undefined>, cwd: string) {
  const rec = join(tmp.path, `${slug}.json`);
  const r = await fleet(['spawn', slug, '--worktree', '--prompt', `do ${slug}`, '--cmd', standInCmd({ STAND_IN_RECORD: rec }), ...extraArgs], { env, cwd });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  const received = await waitRecord(rec);
  await waitOwner(slug);
  return { received, task: await readTask(slug) };
}

async function expectChildIsolated(child: Task, received: Received) {
  const wt = child.worktree as string;
  expect(wt).toBe(join(fe.home, 'worktrees', child.slug));
  expect(wt).not.toBe(parent.worktree);
  expect(child.branch).toBe(`fleet/${child.slug}`);
  expect(child.base).toBe('main');
  expect(received.cwd).toBe(wt);
  // Branched from the base: none of the parent's work in flight is in it.
  const files = await treeFiles(wt);
  expect(files).toEqual({ 'shared.txt': 'base\n' });
  expect(await git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  expect((await git(wt, 'rev-parse', 'HEAD')).trim()).toBe((await git(repo, 'rev-parse', 'main')).trim());
  // The parent's worktree is exactly as it was.
  expect(await snapshot(parent.worktree as string)).toEqual(before);
}

function expectPointer(received: Received, slug: string) {
  const prompt = received.argv[received.argv.length - 1] as string;
  const line = pointerLine(parent) as string;
  expect(line).not.toBeNull();
  expect(prompt).toBe(`do ${slug}\n\n${line}`);
  // The line names the parent's short id, label, worktree and branch.
  const last = prompt.split('\n').at(-1) as string;
  expect(last).toBe(line);
  expect(last).toContain(`session ${PARENT_SID.slice(0, 8)} `);
  expect(last).not.toContain(PARENT_SID);
  expect(last).toContain(JSON.stringify(PARENT_LABEL));
  expect(last).toContain(`worktree ${JSON.stringify(parent.worktree)}`);
  expect(last).toContain(`branch "fleet/parent"`);
  // A pointer, never a body.
  for (const body of ['WIP-BODY-7f3a', 'UNMERGED-BODY-1c9e', 'parent edit in flight', 'parent-wip.txt']) expect(prompt).not.toContain(body);
  return prompt;
}

describe('spawn --worktree from inside a stamped session with a worktree', () => {
  it('the child is told where its spawner works; its own tree holds none of that work; the parent tree is untouched', async () => {
    // From inside the parent's session: its pane, its TMUX, its cwd (the parent worktree).
    const { received, task } = await spawnChild('child', [], { TMUX: parentTmuxEnv, TMUX_PANE: parentPane }, parent.worktree as string);
    expect(task.parentSid).toBe(PARENT_SID);
    expect(task.launcherSid).toBe(PARENT_SID);
    expect(task.driverSid).not.toBe(PARENT_SID);
    const prompt = expectPointer(received, 'child');
    expect(await readFile(join(fe.home, 'tasks', 'child', 'launch-prompt.md'), 'utf8')).toBe(prompt);
    await expectChildIsolated(task, received);
  });

  it('--parent <sid> from a plain shell gives the same pointer', async () => {
    const { received, task } = await spawnChild('child-flag', ['--parent', PARENT_SID], {}, repo);
    expect(task.parentSid).toBe(PARENT_SID);
    expectPointer(received, 'child-flag');
    await expectChildIsolated(task, received);
  });

  it('tmux-fleet pointer --parent prints the very line the child received', async () => {
    const r = await fleet(['pointer', '--parent', PARENT_SID]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(pointerLine(parent));
  });

  it('a parent without a task record appends nothing', async () => {
    const { received, task } = await spawnChild('orphan', ['--parent', 'ffffffff-0000-4000-8000-000000000000'], {}, repo);
    expect(task.parentSid).toBe('ffffffff-0000-4000-8000-000000000000');
    expect(received.argv[received.argv.length - 1]).toBe('do orphan');
    expect(await snapshot(parent.worktree as string)).toEqual(before);
  });
});
