// The launcher's V8 code cache (src/launcher.ts): written once, then used;
// never a reason for a command to fail or to say anything.
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

let fenv: FleetEnv;
let cacheHome: string;
const cacheDir = () => join(cacheHome, 'tmux-fleet');
beforeEach(async () => {
  fenv = await makeFleetEnv('fleet-test-no-such-server');
  cacheHome = join(fenv.root, 'cache');
  const dir = join(fenv.home, 'tasks', 'decided');
  await mkdir(dir, { recursive: true });
  const now = new Date().toISOString();
  await writeFile(join(dir, 'task.json'), JSON.stringify({ slug: 'decided', createdAt: now, updatedAt: now, driverSid: 'sid-a', driverPane: 'op-decided' }));
});
afterEach(async () => {
  await fenv.cleanup();
});

/** owner on a decided task: the answer must be the same whatever the cache holds. */
async function ownerRun(extra: Record<string, string> = {}) {
  const r = await runFleet(['owner', 'decided', '--as', 'sid-a'], { env: { ...fenv.env, XDG_CACHE_HOME: cacheHome, ...extra } });
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 0, stdout: '0 owner (task decided: you are its Driver)', stderr: '' });
}

async function cacheFiles(): Promise<string[]> {
  return (await readdir(cacheDir()).catch(() => [])).sort();
}

describe('the code cache', () => {
  it('the first run writes it (0600 in a 0700 directory); the next run uses it and leaves it alone', async () => {
    await ownerRun();
    const files = await cacheFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^code-[0-9a-f]{16}-${process.version}-${process.arch}\\.bin$`));
    const file = join(cacheDir(), files[0]!);
    const first = await stat(file);
    expect(first.mode & 0o777).toBe(0o600);
    expect((await stat(cacheDir())).mode & 0o777).toBe(0o700);
    expect(first.size).toBeGreaterThan(10_000);
    await ownerRun();
    // Not rewritten: V8 took it (a rejected cache is replaced by a new file, a new inode).
    const second = await stat(file);
    expect([second.ino, second.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
  });

  it('a corrupt cache is rejected: same answer, and a good cache replaces it', async () => {
    await ownerRun();
    const [name] = await cacheFiles();
    const file = join(cacheDir(), name!);
    await writeFile(file, 'not a code cache at all'.repeat(100));
    const corrupt = await stat(file);
    await ownerRun();
    const replaced = await stat(file);
    expect(replaced.ino).not.toBe(corrupt.ino);
    expect(replaced.size).toBeGreaterThan(10_000);
    await ownerRun();
    expect((await stat(file)).ino).toBe(replaced.ino);
  });

  it("another build's cache is removed when this build writes its own; this build's for another Node stays", async () => {
    await ownerRun();
    const [mine] = await cacheFiles();
    const build = /^code-([0-9a-f]{16})-/.exec(mine!)![1];
    await rm(join(cacheDir(), mine!));
    const otherNode = `code-${build}-v99.0.0-${process.arch}.bin`;
    await writeFile(join(cacheDir(), 'code-0000000000000000-v20.0.0-x64.bin'), 'old');
    await writeFile(join(cacheDir(), otherNode), 'another node');
    await writeFile(join(cacheDir(), 'unrelated.txt'), 'kept');
    await ownerRun();
    expect(await cacheFiles()).toEqual([mine!, otherNode, 'unrelated.txt'].sort());
  });

  it('a cache directory that cannot be made: the command works and says nothing', async () => {
    await writeFile(join(fenv.root, 'a-file'), 'x');
    cacheHome = join(fenv.root, 'a-file');
    await ownerRun();
    await ownerRun();
  });

  it('TMUX_FLEET_CODE_CACHE=0: nothing is written', async () => {
    await ownerRun({ TMUX_FLEET_CODE_CACHE: '0' });
    expect(await cacheFiles()).toEqual([]);
  });
});
