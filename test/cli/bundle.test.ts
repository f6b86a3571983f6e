// The built helper (scripts/build.mjs): plain files (a small entry, the fast
// bundle, the full CLI), the heavy dependencies in files of their own that only
// the commands using them read, and stack traces that name src/ under
// TMUX_FLEET_DEBUG=1. What a command loads is counted from the process itself,
// never from wall time.
import { cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

const DIST = join(ROOT, 'dist');
const DEPS = ['execa', 'jsonc-parser', 'smol-toml', 'yargs', 'zod'];

let fenv: FleetEnv;
let server: TestServer;
beforeAll(async () => {
  // A server to read: `tasks` tells no verdict without one (it says the server is unreachable).
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  const dir = join(fenv.home, 'tasks', 'decided');
  await mkdir(dir, { recursive: true });
  const now = new Date().toISOString();
  await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'decided', createdAt: now, updatedAt: now, driverSid: 'sid-a', driverPane: 'op-decided' }));
});
afterAll(async () => {
  await server?.kill();
  await fenv.cleanup();
});

const OWNER_DECIDED = ['owner', 'decided', '--as', 'sid-a'];
const OWNER_ANSWER = { exitCode: 0, stdout: '0 owner (task decided: you are its Driver)', stderr: '' };

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

/** A copy of dist/ to cut short: the real one is shared by every test. */
async function distCopy(): Promise<string> {
  const dir = join(fenv.root, `dist-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`);
  await cp(DIST, dir, { recursive: true });
  return dir;
}

/**
 * What a helper process loaded, recorded at its exit by a preload: the files it
 * required (its module cache, relative to dist/) and the built-in modules Node loaded.
 */
async function loaded(args: string[]): Promise<{ exitCode: number; stdout: string; files: string[]; modules: string[] }> {
  const preload = join(fenv.root, 'record-loaded.cjs');
  const list = join(fenv.root, `loaded-${args[0]}-${Date.now()}.json`);
  await writeFile(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(process.env.FLEET_TEST_LOADED, JSON.stringify({ files: Object.keys(require.cache), modules: process.moduleLoadList })));\n`,
  );
  const r = await runFleet(args, { env: { ...fenv.env, FLEET_TEST_LOADED: list, NODE_OPTIONS: `--require ${preload}` } });
  const seen = JSON.parse(await readFile(list, 'utf8')) as { files: string[]; modules: string[] };
  const files = seen.files.filter((f) => f !== preload).map((f) => relative(DIST, f));
  return { exitCode: r.exitCode, stdout: r.stdout, files, modules: seen.modules };
}

describe('the bundle', () => {
  it('is plain files: a small entry, the fast bundle, the full CLI, each heavy dependency, a source map for each', async () => {
    const files = (await filesUnder(DIST)).filter((f) => !f.endsWith('.tmp'));
    const code = ['tmux-fleet.cjs', 'fast.cjs', 'cli.cjs', ...DEPS.map((d) => `deps/${d}.cjs`)];
    // built-from: what the build was made from (docs/status.md#updates).
    expect(files.sort()).toEqual([...code, ...code.map((f) => `${f}.map`), 'built-from'].sort());

    const text = await readFile(FLEET_BIN, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect((await stat(FLEET_BIN)).mode & 0o111).toBe(0o111);
    expect(text).not.toMatch(/^import /m);
    for (const f of code) {
      const js = await readFile(join(DIST, f), 'utf8');
      // Readable code: no run of encoded text (a base64 blob) that a reader or a stack trace cannot follow.
      expect(js.match(/[A-Za-z0-9+/=]{1000,}/g), f).toBeNull();
      expect(js.trimEnd().endsWith(`//# sourceMappingURL=${f.split('/').pop()}.map`), f).toBe(true);
    }
  });

  it('each file holds what it should: the entry no dependency, the bundles src/ alone, each dependency its own', async () => {
    const sources = async (f: string) =>
      (JSON.parse(await readFile(join(DIST, `${f}.map`), 'utf8')) as { sources: string[] }).sources.map((s) => relative(ROOT, join(DIST, dirname(f), s)));
    const entry = await sources('tmux-fleet.cjs');
    expect(entry).toContain('src/cli/bin.ts');
    expect(entry.filter((s) => s.startsWith('node_modules/'))).toEqual([]);
    const cli = await sources('cli.cjs');
    const fast = await sources('fast.cjs');
    for (const [bundle, main] of [[cli, 'src/cli/main.ts'], [fast, 'src/cli/fast.ts']] as const) {
      expect(bundle).toContain(main);
      expect(bundle.filter((s) => s.startsWith('node_modules/'))).toEqual([]);
    }
    // task.json is checked with zod by the full CLI, with the plain validator of the same field table by the fast bundle (docs/tasks.md#validation).
    expect(cli).toContain('src/tasks/check.ts');
    expect(cli).not.toContain('src/tasks/check-plain.ts');
    expect(fast).toContain('src/tasks/check-plain.ts');
    expect(fast).not.toContain('src/tasks/check.ts');
    // The fast bundle holds the fast commands only.
    expect(fast).toEqual(expect.arrayContaining(['src/cli/owner.ts', 'src/cli/stamp.ts', 'src/cli/sid-of-pane.ts']));
    expect(fast.filter((s) => /^src\/(cli\/(spawn|tasks|doctor|help|main)|status\/)/.test(s))).toEqual([]);
    for (const d of DEPS) expect((await sources(`deps/${d}.cjs`)).some((s) => s.startsWith(`node_modules/${d}/`)), d).toBe(true);
  });

  it('owner on a decided task reads the entry and the fast bundle, and no other file', async () => {
    const r = await loaded(OWNER_DECIDED);
    expect([r.exitCode, r.stdout]).toEqual([0, '0 owner (task decided: you are its Driver)']);
    expect(r.files.sort()).toEqual(['fast.cjs', 'tmux-fleet.cjs']);
  });

  it('a command that uses them reads them: the check above can fail', async () => {
    // tasks goes to the full CLI, reads the task with zod and runs tmux through execa (and edits no settings.json: no jsonc-parser; prints no help: no yargs).
    const r = await loaded(['tasks']);
    expect(r.exitCode).toBe(0);
    expect(r.files.sort()).toEqual(['cli.cjs', 'deps/execa.cjs', 'deps/zod.cjs', 'fast.cjs', 'tmux-fleet.cjs']);
    // Help is laid out by yargs, and runs nothing else.
    const help = await loaded(['tasks', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.files.sort()).toEqual(['cli.cjs', 'deps/yargs.cjs', 'fast.cjs', 'tmux-fleet.cjs']);
  });

  it('owner on a decided task loads no child_process, no streams, no fs/promises, no readline', async () => {
    const r = await loaded(OWNER_DECIDED);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^0 owner/);
    const heavy = r.modules.filter((m) => /^NativeModule (child_process|stream|fs\/promises|internal\/readline\/interface)$/.test(m));
    expect(heavy).toEqual([]);
  });

  it('a command that runs a process does load them: the check above can fail', async () => {
    const r = await loaded(['tasks']);
    expect(r.modules).toContain('NativeModule child_process');
  });

  it('a build cut short (the full CLI or the fast bundle missing): one line that says to build again, exit 1, no stack', async () => {
    const dist = await distCopy();
    await rm(join(dist, 'cli.cjs'));
    const tasks = await runFleet(['tasks'], { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') });
    expect(tasks).toEqual({ exitCode: 1, stdout: '', stderr: `tmux-fleet: the helper in ${dist} is incomplete (Cannot find module '${join(dist, 'cli.cjs')}'); build it again: npm run build` });
    // The fast commands do not need the full CLI.
    expect(await runFleet(OWNER_DECIDED, { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') })).toEqual(OWNER_ANSWER);
    await rm(join(dist, 'fast.cjs'));
    const owner = await runFleet(OWNER_DECIDED, { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') });
    expect(owner).toEqual({ exitCode: 1, stdout: '', stderr: `tmux-fleet: the helper in ${dist} is incomplete (Cannot find module '${join(dist, 'fast.cjs')}'); build it again: npm run build` });
  });

  it('run through a symlink (ln -s into ~/.local/bin), the helper finds its dependencies', async () => {
    const bin = join(fenv.root, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(FLEET_BIN, join(bin, 'tmux-fleet'));
    const r = await execa(join(bin, 'tmux-fleet'), ['tasks'], { env: { ...fenv.env, TMUX: undefined }, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^decided\s+sid-a\s/m);
  });
});

describe('stack traces under TMUX_FLEET_DEBUG=1', () => {
  /** The line of src/cli/run.ts that throws for TMUX_FLEET_DEBUG_THROW. */
  async function throwLine(): Promise<number> {
    const lines = (await readFile(join(ROOT, 'src', 'cli', 'run.ts'), 'utf8')).split('\n');
    const i = lines.findIndex((l) => l.includes('TMUX_FLEET_DEBUG_THROW === spec.name'));
    expect(i).toBeGreaterThan(0);
    return i + 1;
  }

  it.each([
    ['owner (the fast bundle)', OWNER_DECIDED, ['src/cli/fast.ts:']],
    ['tasks (the full CLI, from its own file)', ['tasks'], ['src/cli/main.ts:']],
  ])('an internal error in %s: the stack names src/cli/run.ts at the line that threw, then where to report it', async (_what, args, alsoNamed) => {
    const r = await runFleet(args, { env: { ...fenv.env, TMUX_FLEET_DEBUG: '1', TMUX_FLEET_DEBUG_THROW: args[0]! } });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toBe(`tmux-fleet: TMUX_FLEET_DEBUG_THROW=${args[0]}`);
    expect(lines[1]).toBe(`Error: TMUX_FLEET_DEBUG_THROW=${args[0]}`);
    expect(lines[2]).toMatch(new RegExp(`^\\s+at runCommand \\(${ROOT}src/cli/run\\.ts:${await throwLine()}:\\d+\\)$`));
    for (const s of alsoNamed) expect(r.stderr).toContain(s);
    expect(r.stderr).not.toContain('dist/');
    expect(lines.at(-1)).toMatch(/^tmux-fleet: if this is a bug, please report it with the lines above: https:\/\/\S+$/);
  });

  it('a usage error names its source too, and is not called a bug', async () => {
    const r = await runFleet(['owner', '../x'], { env: { ...fenv.env, TMUX_FLEET_DEBUG: '1' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^\s+at assertSlug \(\S+\/src\/tasks\/slug\.ts:\d+:\d+\)$/m);
    expect(r.stderr).not.toContain('report');
  });

  it('without TMUX_FLEET_DEBUG=1 the hook does nothing', async () => {
    const r = await runFleet(OWNER_DECIDED, { env: { ...fenv.env, TMUX_FLEET_DEBUG_THROW: 'owner' } });
    expect(r).toEqual(OWNER_ANSWER);
  });
});

describe('printing', () => {
  it('a reader that goes away early (| head) gets no error line and no stack', async () => {
    // 1000 tasks as JSON: more than a pipe holds (64 KiB), so the helper is still writing when head exits.
    const now = new Date().toISOString();
    for (let i = 0; i < 1000; i++) {
      const dir = join(fenv.home, 'tasks', `many-${i}`);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: `many-${i}`, createdAt: now, updatedAt: now, driverSid: `sid-${i}`, driverPane: `op-${i}` }));
    }
    const errFile = join(fenv.root, 'head-stderr.txt');
    const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(FLEET_BIN)} tasks --json 2>${JSON.stringify(errFile)} | head -c 20 >/dev/null`;
    const r = await execa('sh', ['-c', script], { env: { ...process.env, ...fenv.env, TMUX: undefined }, reject: false });
    expect(r.exitCode).toBe(0);
    const err = await readFile(errFile, 'utf8');
    expect(err).not.toMatch(/EPIPE|^\s+at /m);
  });
});
