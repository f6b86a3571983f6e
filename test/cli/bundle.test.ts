// The built helper is one file, and the hot commands load only what they use
// (docs/budgets.md#owner-start-up). Counted from the Node modules the process loaded, never
// from wall time.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadedModules, makeFleetEnv, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, ROOT } from '../helpers/paths';

let fenv: FleetEnv;
beforeAll(async () => {
  fenv = await makeFleetEnv('fleet-test-no-such-server');
});
afterAll(async () => {
  await fenv.cleanup();
});

describe('the bundle', () => {
  it('is one file in dist/, CommonJS, ASCII only', async () => {
    const files = (await readdir(join(ROOT, 'dist'))).filter((f) => !f.endsWith('.tmp'));
    expect(files.filter((f) => f !== 'tmux-fleet.cjs' && f !== 'tmux-fleet.mjs' && f !== 'chunks')).toEqual([]);
    expect(files).toContain('tmux-fleet.cjs');
    const text = await readFile(FLEET_BIN, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).not.toMatch(/^import /m);
    expect(text).not.toMatch(/[^\x00-\x7f]/);
  });

  it('owner on a decided task loads no child_process, no streams, no fs/promises, no readline', async () => {
    const dir = join(fenv.home, 'tasks', 'decided');
    await mkdir(dir, { recursive: true });
    const now = new Date().toISOString();
    await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'decided', createdAt: now, updatedAt: now, driverSid: 'sid-a', driverPane: 'op-decided' }));
    const r = await loadedModules(fenv, ['owner', 'decided', '--as', 'sid-a']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^0 owner/);
    const heavy = r.modules.filter((m) => /^NativeModule (child_process|stream|fs\/promises|internal\/readline\/interface)$/.test(m));
    expect(heavy).toEqual([]);
  });

  it('a command that runs a process does load them: the check above can fail', async () => {
    const r = await loadedModules(fenv, ['tasks']);
    expect(r.modules).toContain('NativeModule child_process');
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
