// What a task's lock leaves behind when things go wrong: a `.lock` that is a
// directory was moved aside and stayed as a `.lock.stale-*` directory for
// ever; a full disk left an empty `.lock` (the next writer waited 5 s for it)
// and an ENOSPC that named no file. The disk is made full for real: a small
// tmpfs. Mounting one needs root (this suite runs as root here and in CI):
// run as another user, those tests are skipped, and their title says why.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, open, readdir, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { taskDir } from '../../src/context';
import { updateTask } from '../../src/tasks/store';
import { makeTempDir, type TempDir } from '../helpers/env';

let tmp: TempDir;
let home: string;

beforeEach(async () => {
  tmp = await makeTempDir();
  home = join(tmp.path, 'home');
});
afterEach(async () => {
  await tmp.cleanup();
});

const lockLitter = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.lock'));

describe('a .lock that is a directory', () => {
  it('is broken and removed: the write lands, no .lock.stale-* directory stays', async () => {
    const dir = taskDir(home, 'ld');
    await mkdir(join(dir, '.lock'), { recursive: true, mode: 0o700 });
    await writeFile(join(dir, '.lock', 'inside'), 'x');
    await updateTask(home, 'ld', () => ({ slug: 'ld', label: 'written' }), { create: true });
    expect(JSON.parse(readFileSync(join(dir, 'task.json'), 'utf8')).label).toBe('written');
    expect(lockLitter(dir)).toEqual([]);
  });

  it('an old moved-aside lock directory of a dead writer is removed with the other litter', async () => {
    const dir = taskDir(home, 'ld');
    const aside = join(dir, '.lock.stale-4000000-1700000000000');
    await mkdir(aside, { recursive: true, mode: 0o700 });
    const old = new Date(Date.now() - 10 * 60_000);
    await utimes(aside, old, old);
    await updateTask(home, 'ld', () => ({ slug: 'ld' }), { create: true });
    expect(lockLitter(dir)).toEqual([]);
  });
});

/** Mounting the tmpfs needs root. */
const canMount = process.getuid?.() === 0;

describe.skipIf(!canMount)(canMount ? 'a full disk' : 'a full disk (skipped: mounting a tmpfs needs root, and this run is not root)', () => {
  let mnt: string;
  let mounted = false;

  beforeAll(async () => {
    const t = await makeTempDir();
    mnt = t.path;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mnt]);
    mounted = true;
  });
  afterAll(() => {
    if (mounted) execFileSync('umount', [mnt]);
  });

  /** Fills the filesystem; returns a function that frees one page (4 KiB) at a time. */
  async function fill(): Promise<() => Promise<void>> {
    const filler = join(mnt, 'filler');
    const fh = await open(filler, 'w');
    const page = Buffer.alloc(4096, 1);
    let size = 0;
    try {
      for (;;) {
        await fh.write(page, 0, page.length, size);
        size += page.length;
      }
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      await fh.close();
    }
    await truncate(filler, size);
    return async () => {
      size -= page.length;
      await truncate(filler, size);
    };
  }

  it('taking the lock fails naming the task directory and the cause; no empty .lock is left', async () => {
    const fleetHome = join(mnt, 'home1');
    await updateTask(fleetHome, 'df', () => ({ slug: 'df', label: 'before' }), { create: true });
    const dir = taskDir(fleetHome, 'df');
    const before = readFileSync(join(dir, 'task.json'));
    await fill();
    let caught: unknown;
    try {
      await updateTask(fleetHome, 'df', (t) => (t ? { ...t, label: 'after' } : t));
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).message).toBe(`cannot lock ${dir}: no space left on device (ENOSPC)`);
    expect(lockLitter(dir)).toEqual([]);
    expect(readFileSync(join(dir, 'task.json')).equals(before)).toBe(true);
    execFileSync('rm', ['-f', join(mnt, 'filler')]);
  });

  it('writing task.json fails naming the file; the old file stays whole, no temp file and no lock is left', async () => {
    const fleetHome = join(mnt, 'home2');
    await updateTask(fleetHome, 'df', () => ({ slug: 'df', label: 'before' }), { create: true });
    const dir = taskDir(fleetHome, 'df');
    const before = readFileSync(join(dir, 'task.json'));
    const freePage = await fill();
    // One page free: enough for the lock, not for the new task.json beside it.
    await freePage();
    let caught: unknown;
    try {
      await updateTask(fleetHome, 'df', (t) => (t ? { ...t, label: 'after' } : t));
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).message).toBe(`cannot write ${join(dir, 'task.json')}: no space left on device (ENOSPC); nothing changed`);
    expect(readFileSync(join(dir, 'task.json')).equals(before)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['task.json']);
    expect(statSync(join(dir, 'task.json')).size).toBe(before.length);
    execFileSync('rm', ['-f', join(mnt, 'filler')]);
    expect(existsSync(join(mnt, 'filler'))).toBe(false);
  });
});
