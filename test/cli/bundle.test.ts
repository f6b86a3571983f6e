// The built helper (scripts/build.mjs): plain files, the heavy dependencies in
// files of their own that only the commands using them read, stack traces that
// name src/ under TMUX_FLEET_DEBUG=1, and no code cache to plant code in.
// What a command loads is counted from the process itself, never from wall time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadedModules, makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';
import { startServer, type TestServer } from '../helpers/tmux-server';

const DIST = join(ROOT, 'dist');
const DEPS = ['execa', 'jsonc-parser', 'yargs'];

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

/** The files the helper's process required (its module cache at exit), relative to dist/ when inside it. */
async function requiredFiles(args: string[], env: Record<string, string> = {}): Promise<{ exitCode: number; stdout: string; files: string[] }> {
  const preload = join(fenv.root, 'record-files.cjs');
  const list = join(fenv.root, `files-${args[0]}-${Date.now()}.json`);
  await writeFile(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache))));\n`);
  const r = await runFleet(args, { env: { ...fenv.env, ...env, NODE_OPTIONS: `--require ${preload}` } });
  const files = (JSON.parse(await readFile(list, 'utf8')) as string[]).filter((f) => f !== preload).map((f) => relative(DIST, f));
  return { exitCode: r.exitCode, stdout: r.stdout, files };
}

describe('the bundle', () => {
  it('is plain files: the helper, each heavy dependency beside it, a source map for each', async () => {
    // Layouts of earlier builds may linger for a while after a rebuild (scripts/build.mjs removes them).
    const files = (await filesUnder(DIST)).filter((f) => !f.endsWith('.tmp') && !f.startsWith('chunks/') && f !== 'tmux-fleet.mjs');
    const code = ['tmux-fleet.cjs', ...DEPS.map((d) => `deps/${d}.cjs`)];
    expect(files.sort()).toEqual([...code, ...code.map((f) => `${f}.map`)].sort());

    const text = await readFile(FLEET_BIN, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect((await stat(FLEET_BIN)).mode & 0o111).toBe(0o111);
    expect(text).not.toMatch(/^import /m);
    for (const f of code) {
      const js = await readFile(join(DIST, f), 'utf8');
      expect(js, f).not.toMatch(/[^\x00-\x7f]/);
      // No code stored as encoded text: the earlier build kept execa and yargs as base64 runs of 40,000 characters.
      expect(js.match(/[A-Za-z0-9+/=]{1000,}/g), f).toBeNull();
      expect(js.trimEnd().endsWith(`//# sourceMappingURL=${f.split('/').pop()}.map`), f).toBe(true);
    }
  });

  it("the helper's file holds src/ and zod, not the others; each dependency's file holds that dependency", async () => {
    const sources = async (f: string) =>
      (JSON.parse(await readFile(join(DIST, `${f}.map`), 'utf8')) as { sources: string[] }).sources.map((s) => relative(ROOT, join(DIST, dirname(f), s)));
    const helper = await sources('tmux-fleet.cjs');
    expect(helper).toContain('src/cli/main.ts');
    expect(helper.some((s) => s.startsWith('node_modules/zod/'))).toBe(true);
    expect(helper.filter((s) => s.startsWith('node_modules/') && !s.startsWith('node_modules/zod/'))).toEqual([]);
    for (const d of DEPS) expect((await sources(`deps/${d}.cjs`)).some((s) => s.startsWith(`node_modules/${d}/`)), d).toBe(true);
  });

  it('owner on a decided task reads no dependency file', async () => {
    const r = await requiredFiles(OWNER_DECIDED);
    expect([r.exitCode, r.stdout]).toEqual([0, '0 owner (task decided: you are its Driver)']);
    expect(r.files).toEqual(['tmux-fleet.cjs']);
  });

  it('a command that uses them reads them: the check above can fail', async () => {
    // tasks goes through yargs and runs tmux through execa (and edits no settings.json: no jsonc-parser).
    const r = await requiredFiles(['tasks']);
    expect(r.exitCode).toBe(0);
    expect(r.files.sort()).toEqual(['deps/execa.cjs', 'deps/yargs.cjs', 'tmux-fleet.cjs']);
  });

  it('owner on a decided task loads no child_process, no streams, no fs/promises, no readline', async () => {
    const r = await loadedModules(fenv, OWNER_DECIDED);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^0 owner/);
    const heavy = r.modules.filter((m) => /^NativeModule (child_process|stream|fs\/promises|internal\/readline\/interface)$/.test(m));
    expect(heavy).toEqual([]);
  });

  it('a command that runs a process does load them: the check above can fail', async () => {
    const r = await loadedModules(fenv, ['tasks']);
    expect(r.modules).toContain('NativeModule child_process');
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
  /** The line of src/cli/main.ts that throws for TMUX_FLEET_DEBUG_THROW. */
  async function throwLine(): Promise<number> {
    const lines = (await readFile(join(ROOT, 'src', 'cli', 'main.ts'), 'utf8')).split('\n');
    const i = lines.findIndex((l) => l.includes('TMUX_FLEET_DEBUG_THROW === name'));
    expect(i).toBeGreaterThan(0);
    return i + 1;
  }

  it.each([
    ['owner (the fast path, no dependency file)', OWNER_DECIDED, []],
    ['tasks (through yargs, from its own file)', ['tasks'], ['src/cli/yargs-cli.ts:']],
  ])('an internal error in %s: the stack names src/cli/main.ts at the line that threw, then where to report it', async (_what, args, alsoNamed) => {
    const r = await runFleet(args, { env: { ...fenv.env, TMUX_FLEET_DEBUG: '1', TMUX_FLEET_DEBUG_THROW: args[0]! } });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toBe(`tmux-fleet: TMUX_FLEET_DEBUG_THROW=${args[0]}`);
    expect(lines[1]).toBe(`Error: TMUX_FLEET_DEBUG_THROW=${args[0]}`);
    expect(lines[2]).toMatch(new RegExp(`^\\s+at runCommand \\(${ROOT}src/cli/main\\.ts:${await throwLine()}:\\d+\\)$`));
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

describe('no code cache', () => {
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
