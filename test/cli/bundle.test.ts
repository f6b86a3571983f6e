// The built helper (scripts/build.mjs): plain files (a small entry, the fast
// bundle with its code cache, the full CLI), the heavy dependencies in files of
// their own that only the commands using them read, stack traces that name src/
// under TMUX_FLEET_DEBUG=1, and a code cache used only when it is the user's alone.
// What a command loads is counted from the process itself, never from wall time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, chown, cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

const DIST = join(ROOT, 'dist');
const DEPS = ['execa', 'jsonc-parser', 'smol-toml', 'yargs'];

/** The fast bundle the entry names (fast-<hash>.cjs); a rebuild may leave older ones for a while. */
async function fastBundleName(dist = DIST): Promise<string> {
  const m = /fast-[A-Z0-9]+\.cjs/.exec(await readFile(join(dist, 'tmux-fleet.cjs'), 'utf8'));
  expect(m).not.toBeNull();
  return m![0];
}

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

/** A copy of dist/ to plant in or cut short: the real one is shared by every test. */
async function distCopy(): Promise<string> {
  const dir = join(fenv.root, `dist-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`);
  await cp(DIST, dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

/**
 * What a helper process loaded, recorded at its exit by a preload: the files it
 * required (its module cache, relative to dist/), each bundle it compiled through
 * node:vm with a code cache and whether V8 took the cache, and the built-in
 * modules Node loaded.
 */
async function loaded(
  args: string[],
  env: Record<string, string> = {},
  bin = FLEET_BIN,
): Promise<{ exitCode: number; stdout: string; files: string[]; cached: { file: string; rejected: boolean | undefined }[]; modules: string[] }> {
  const dist = dirname(bin);
  const preload = join(fenv.root, 'record-loaded.cjs');
  const list = join(fenv.root, `loaded-${args[0]}-${Date.now()}.json`);
  await writeFile(
    preload,
    `const vm = require('node:vm');
const cached = [];
vm.Script = class extends vm.Script {
  constructor(code, options) {
    super(code, options);
    if (options && options.cachedData) cached.push({ file: options.filename, rejected: this.cachedDataRejected });
  }
};
process.on('exit', () => require('node:fs').writeFileSync(process.env.FLEET_TEST_LOADED, JSON.stringify({ files: Object.keys(require.cache), cached, modules: process.moduleLoadList })));
`,
  );
  const r = await runFleet(args, { env: { ...fenv.env, ...env, FLEET_TEST_LOADED: list, NODE_OPTIONS: `--require ${preload}` }, bin });
  const seen = JSON.parse(await readFile(list, 'utf8')) as { files: string[]; cached: { file: string; rejected: boolean | undefined }[]; modules: string[] };
  const files = seen.files.filter((f) => f !== preload).map((f) => relative(dist, f));
  return { exitCode: r.exitCode, stdout: r.stdout, files, cached: seen.cached.map((c) => ({ ...c, file: relative(dist, c.file) })), modules: seen.modules };
}

describe('the bundle', () => {
  it('is plain files: a small entry, the fast bundle and its code cache, the full CLI, each heavy dependency, a source map for each', async () => {
    const fast = await fastBundleName();
    // Layouts of earlier builds, and fast bundles of earlier builds, may linger for a while after a rebuild (scripts/build.mjs removes them).
    const files = (await filesUnder(DIST)).filter((f) => !f.endsWith('.tmp') && !f.startsWith('chunks/') && f !== 'tmux-fleet.mjs' && !(f.startsWith('fast-') && !f.startsWith(fast)));
    const code = ['tmux-fleet.cjs', 'cli.cjs', fast, ...DEPS.map((d) => `deps/${d}.cjs`)];
    expect(files.sort()).toEqual([...code, ...code.map((f) => `${f}.map`), `${fast}.cache`].sort());

    const text = await readFile(FLEET_BIN, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect((await stat(FLEET_BIN)).mode & 0o111).toBe(0o111);
    expect(text).not.toMatch(/^import /m);
    for (const f of code) {
      const js = await readFile(join(DIST, f), 'utf8');
      // ASCII only: the entry reads the fast bundle as latin1 (src/cli/load-bundle.ts).
      expect(js, f).not.toMatch(/[^\x00-\x7f]/);
      // No code stored as encoded text: the earlier build kept execa and yargs as base64 runs of 40,000 characters.
      expect(js.match(/[A-Za-z0-9+/=]{1000,}/g), f).toBeNull();
      expect(js.trimEnd().endsWith(`//# sourceMappingURL=${f.split('/').pop()}.map`), f).toBe(true);
    }
    // The cache is the user's alone, or the entry would not use it.
    expect((await stat(join(DIST, `${fast}.cache`))).mode & 0o022).toBe(0);
  });

  it('each file holds what it should: the entry no dependency, the bundles src/ and zod, each dependency its own', async () => {
    const sources = async (f: string) =>
      (JSON.parse(await readFile(join(DIST, `${f}.map`), 'utf8')) as { sources: string[] }).sources.map((s) => relative(ROOT, join(DIST, dirname(f), s)));
    const entry = await sources('tmux-fleet.cjs');
    expect(entry).toContain('src/cli/bin.ts');
    expect(entry.filter((s) => s.startsWith('node_modules/'))).toEqual([]);
    const cli = await sources('cli.cjs');
    const fast = await sources(await fastBundleName());
    for (const [bundle, main] of [[cli, 'src/cli/main.ts'], [fast, 'src/cli/fast.ts']] as const) {
      expect(bundle).toContain(main);
      expect(bundle.some((s) => s.startsWith('node_modules/zod/'))).toBe(true);
      expect(bundle.filter((s) => s.startsWith('node_modules/') && !s.startsWith('node_modules/zod/'))).toEqual([]);
    }
    // The fast bundle holds the fast commands only.
    expect(fast).toEqual(expect.arrayContaining(['src/cli/owner.ts', 'src/cli/stamp.ts', 'src/cli/sid-of-pane.ts']));
    expect(fast.filter((s) => /^src\/(cli\/(spawn|tasks|doctor|yargs-cli|main)|status\/)/.test(s))).toEqual([]);
    for (const d of DEPS) expect((await sources(`deps/${d}.cjs`)).some((s) => s.startsWith(`node_modules/${d}/`)), d).toBe(true);
  });

  it('owner on a decided task runs the fast bundle from its code cache, which V8 takes, and reads no other file', async () => {
    const r = await loaded(OWNER_DECIDED);
    expect([r.exitCode, r.stdout]).toEqual([0, '0 owner (task decided: you are its Driver)']);
    expect(r.files).toEqual(['tmux-fleet.cjs']);
    expect(r.cached).toEqual([{ file: await fastBundleName(), rejected: false }]);
  });

  it('a command that uses them reads them: the check above can fail', async () => {
    // tasks goes to the full CLI, through yargs, and runs tmux through execa (and edits no settings.json: no jsonc-parser).
    const r = await loaded(['tasks']);
    expect(r.exitCode).toBe(0);
    expect(r.files.sort()).toEqual(['cli.cjs', 'deps/execa.cjs', 'deps/yargs.cjs', 'tmux-fleet.cjs']);
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
    const fast = await fastBundleName(dist);
    await rm(join(dist, 'cli.cjs'));
    const tasks = await runFleet(['tasks'], { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') });
    expect(tasks).toEqual({ exitCode: 1, stdout: '', stderr: `tmux-fleet: the helper in ${dist} is incomplete (Cannot find module '${join(dist, 'cli.cjs')}'); build it again: npm run build` });
    // The fast commands do not need the full CLI.
    expect(await runFleet(OWNER_DECIDED, { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') })).toEqual(OWNER_ANSWER);
    await rm(join(dist, fast));
    const owner = await runFleet(OWNER_DECIDED, { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') });
    expect([owner.exitCode, owner.stdout]).toEqual([1, '']);
    // Read with its cache (ENOENT on open) or without (require: Cannot find module): either way it is named.
    expect(owner.stderr).toBe(owner.stderr.split('\n')[0]);
    expect(owner.stderr.startsWith(`tmux-fleet: the helper in ${dist} is incomplete (`)).toBe(true);
    expect(owner.stderr.endsWith(`${join(dist, fast)}'); build it again: npm run build`)).toBe(true);
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
    ['owner (the fast bundle, loaded without its code cache)', OWNER_DECIDED, ['src/cli/fast.ts:']],
    ['tasks (the full CLI, through yargs, from its own file)', ['tasks'], ['src/cli/yargs-cli.ts:']],
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

describe('no code cache in $XDG_CACHE_HOME', () => {
  it('a V8 code cache planted in $XDG_CACHE_HOME/tmux-fleet is never run', async () => {
    // As a probe did against the earlier build (which compiled itself from a string with a
    // cache kept there): V8 checks little more than the source's length, so a cache made from
    // another script of the same length runs that script. Planted under the names that build used.
    const cacheHome = join(fenv.root, 'planted-cache');
    const dir = join(cacheHome, 'tmux-fleet');
    await mkdir(dir, { recursive: true });
    const marker = join(fenv.root, 'planted-code-ran');
    const text = await readFile(FLEET_BIN, 'utf8');
    const shapes = [text, text.replace(/^#!.*\n/, '')].map((t) => `(function (exports, require, module, __filename, __dirname) {${t}\n})`);
    for (const shape of shapes) {
      const evil = `(function (exports, require) { require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); })`;
      const padded = `${evil}/*${' '.repeat(shape.length - evil.length - 4)}*/`;
      expect(padded.length).toBe(shape.length);
      const id = createHash('sha256').update(shape).digest('hex').slice(0, 16);
      const file = join(dir, `code-${id}-${process.version}-${process.arch}.bin`);
      // Made by the same node binary, with the same flags, as the helper runs.
      const made = spawnSync(process.execPath, ['-e', `const {Script}=require('node:vm');const fs=require('node:fs');fs.writeFileSync(${JSON.stringify(file)}, new Script(fs.readFileSync(0,'utf8')).createCachedData())`], { input: padded });
      expect(made.status, String(made.stderr)).toBe(0);
    }
    const planted = (await readdir(dir)).sort();
    expect(planted).toHaveLength(2);

    const env = { ...fenv.env, XDG_CACHE_HOME: cacheHome };
    const version = await runFleet(['--version'], { env });
    expect([version.exitCode, version.stderr]).toEqual([0, '']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(await runFleet(OWNER_DECIDED, { env })).toEqual(OWNER_ANSWER);
    expect((await runFleet(['tasks'], { env })).exitCode).toBe(0);
    await expect(stat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
    // Nothing written there either.
    expect((await readdir(dir)).sort()).toEqual(planted);
  });
});

describe("the fast bundle's code cache (docs/budgets.md#the-code-cache)", () => {
  /**
   * Replaces the cache with one made from other code of the same length as the
   * bundle the entry compiles (Node's wrapper around its text): V8 checks little
   * more than that length, so the other code runs. Returns the marker it writes.
   */
  async function plantOtherCode(dist: string): Promise<string> {
    const fast = await fastBundleName(dist);
    const marker = join(dist, 'planted-code-ran');
    const wrapped = `(function (exports, require, module, __filename, __dirname) { ${await readFile(join(dist, fast), 'latin1')}\n});`;
    const other = `(function (exports, require) { require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); })`;
    const padded = `${other}/*${' '.repeat(wrapped.length - other.length - 4)}*/`;
    expect(padded.length).toBe(wrapped.length);
    const cache = join(dist, `${fast}.cache`);
    const made = spawnSync(process.execPath, ['-e', `const {Script}=require('node:vm');const fs=require('node:fs');fs.writeFileSync(${JSON.stringify(cache)}, new Script(fs.readFileSync(0,'latin1')).createCachedData())`], {
      input: padded,
      env: { PATH: process.env.PATH },
    });
    expect(made.status, String(made.stderr)).toBe(0);
    await chmod(cache, 0o644);
    return marker;
  }

  const ran = async (marker: string) => (await stat(marker).then(() => true, () => false));

  it('a cache V8 refuses (corrupt, or made by another Node) costs only time: owner answers the same', async () => {
    const dist = await distCopy();
    const fast = await fastBundleName(dist);
    await writeFile(join(dist, `${fast}.cache`), Buffer.alloc(4096, 7), { mode: 0o644 });
    const r = await loaded(OWNER_DECIDED, {}, join(dist, 'tmux-fleet.cjs'));
    expect([r.exitCode, r.stdout]).toEqual([0, OWNER_ANSWER.stdout]);
    expect(r.cached).toEqual([{ file: fast, rejected: true }]);
  });

  it('a cache that is the user\'s alone decides what runs: planted there, other code runs (why the checks below matter)', async () => {
    const dist = await distCopy();
    const marker = await plantOtherCode(dist);
    await runFleet(OWNER_DECIDED, { env: fenv.env, bin: join(dist, 'tmux-fleet.cjs') });
    expect(await ran(marker)).toBe(true);
  });

  it.each([
    ['the cache is writable by group and others', { file: 0o666, dir: 0o755 }],
    ['the cache is writable by group', { file: 0o664, dir: 0o755 }],
    ['its directory is writable by others', { file: 0o644, dir: 0o757 }],
    ['its directory is writable by group', { file: 0o644, dir: 0o775 }],
  ])('never used when %s: the bundle is compiled from its text and owner answers', async (_what, modes) => {
    const dist = await distCopy();
    const marker = await plantOtherCode(dist);
    await chmod(join(dist, `${await fastBundleName(dist)}.cache`), modes.file);
    await chmod(dist, modes.dir);
    const r = await loaded(OWNER_DECIDED, {}, join(dist, 'tmux-fleet.cjs'));
    expect([r.exitCode, r.stdout]).toEqual([0, OWNER_ANSWER.stdout]);
    expect(r.cached).toEqual([]);
    expect(await ran(marker)).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)('never used when another user owns it (as root: a cache owned by nobody)', async () => {
    const dist = await distCopy();
    const marker = await plantOtherCode(dist);
    await chown(join(dist, `${await fastBundleName(dist)}.cache`), 65534, 65534);
    const r = await loaded(OWNER_DECIDED, {}, join(dist, 'tmux-fleet.cjs'));
    expect([r.exitCode, r.stdout]).toEqual([0, OWNER_ANSWER.stdout]);
    expect(r.cached).toEqual([]);
    expect(await ran(marker)).toBe(false);
  });

  it('never used under TMUX_FLEET_DEBUG=1 (it has no source map)', async () => {
    const dist = await distCopy();
    const marker = await plantOtherCode(dist);
    const r = await loaded(OWNER_DECIDED, { TMUX_FLEET_DEBUG: '1' }, join(dist, 'tmux-fleet.cjs'));
    expect([r.exitCode, r.stdout]).toEqual([0, OWNER_ANSWER.stdout]);
    expect(r.cached).toEqual([]);
    expect(await ran(marker)).toBe(false);
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
