// Integration: the task store on real files, with real child processes for the lock.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dir as tmpDir, type DirectoryResult } from 'tmp-promise';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { taskDir, tasksDir } from '../../src/context';
import { FleetError, TaskFileError, UsageError } from '../../src/errors';
import { procStartTicks } from '../../src/proc';
import { listTasks, readTask, taskFile, updateTask, withDirLock, type Task } from '../../src/tasks';
import { sleep, waitFor } from '../helpers/env';

const WORKER = fileURLToPath(new URL('../.build/store-worker.mjs', import.meta.url));
const NONCE = 'c'.repeat(32);

let tmp: DirectoryResult;
let home: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  tmp = await tmpDir({ unsafeCleanup: true, prefix: 'fleet-test-' });
  home = join(tmp.path, 'home');
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await tmp.cleanup();
});

const mode = async (p: string) => (await stat(p)).mode & 0o777;

async function create(slug: string, task: Record<string, unknown> = {}): Promise<Task> {
  const t = await updateTask(home, slug, () => ({ slug, driverSid: '', ...task }), { create: true });
  return t as Task;
}

function startWorker(args: string[]): { child: ChildProcess; line: (text: string) => Promise<void>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) {
      if (out.includes(`${w.text}\n`)) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const line = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.includes(`${text}\n`)) return resolve();
      waiters.push({ text, resolve });
      void exit.then((code) => reject(new Error(`worker exited ${code} before "${text}": ${err}`)));
    });
  void exit.then((code) => {
    if (code !== 0 && code !== null) throw new Error(`worker ${args.join(' ')} exited ${code}: ${err}`);
  });
  return { child, line, exit };
}

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const c = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => c.on('close', r));
  return c.pid!;
}

describe('create, read, update', () => {
  it('a missing task reads as null; update without create refuses', async () => {
    expect(await readTask(home, 'nope')).toBeNull();
    await expect(updateTask(home, 'nope', (t) => t)).rejects.toThrow(FleetError);
    await expect(updateTask(home, 'nope', (t) => t)).rejects.toThrow(/no task "nope"/);
  });

  it('creates with createdAt/updatedAt, reads back, updates keep createdAt and move updatedAt', async () => {
    let seen: Task | null | undefined;
    const made = await updateTask(
      home,
      'fix-it',
      (t) => {
        seen = t;
        return { slug: 'ignored', driverSid: '', label: 'first' };
      },
      { create: true },
    );
    expect(seen).toBeNull();
    expect(made?.slug).toBe('fix-it'); // the directory name wins
    expect(made?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await readTask(home, 'fix-it')).toEqual(made);

    await sleep(5);
    const next = await updateTask(home, 'fix-it', (t) => ({ ...t!, label: 'second' }));
    expect(next?.label).toBe('second');
    expect(next?.createdAt).toBe(made?.createdAt);
    expect(next!.updatedAt! > made!.updatedAt!).toBe(true);
    expect(JSON.parse(await readFile(taskFile(home, 'fix-it'), 'utf8'))).toEqual(next);
  });

  it('fn returning null writes nothing', async () => {
    await create('a', { label: 'x' });
    const before = await readFile(taskFile(home, 'a'));
    const r = await updateTask(home, 'a', () => null);
    expect(r?.label).toBe('x');
    expect(await readFile(taskFile(home, 'a'))).toEqual(before);
  });

  it('writes go through the serializer: the nonce goes once the owner is known', async () => {
    await create('a', { driverPane: 'op-a', spawnNonce: NONCE });
    expect((await readTask(home, 'a'))?.spawnNonce).toBe(NONCE);
    await updateTask(home, 'a', (t) => ({ ...t!, driverSid: 'sid-1' }));
    const raw = JSON.parse(await readFile(taskFile(home, 'a'), 'utf8')) as Record<string, unknown>;
    expect(raw.driverSid).toBe('sid-1');
    expect('spawnNonce' in raw).toBe(false);
    expect(raw.driverPane).toBe('op-a');
  });

  it('bad slugs are usage errors and touch nothing', async () => {
    for (const slug of ['../x', '.', 'a:b', 'Caps', '']) {
      await expect(readTask(home, slug)).rejects.toBeInstanceOf(UsageError);
      await expect(updateTask(home, slug, () => ({ slug }), { create: true })).rejects.toBeInstanceOf(UsageError);
    }
    await expect(stat(home)).rejects.toThrow(/ENOENT/);
  });

  it('directories are 0700 and task.json 0600, also when a directory existed with looser modes', async () => {
    await mkdir(taskDir(home, 'loose'), { recursive: true });
    await chmod(tasksDir(home), 0o755);
    await chmod(taskDir(home, 'loose'), 0o777);
    const old = process.umask(0o000);
    try {
      await create('fresh');
      await create('loose');
    } finally {
      process.umask(old);
    }
    expect(await mode(tasksDir(home))).toBe(0o700);
    for (const slug of ['fresh', 'loose']) {
      expect(await mode(taskDir(home, slug))).toBe(0o700);
      expect(await mode(taskFile(home, slug))).toBe(0o600);
    }
  });

  it('unknown keys survive every update, at the top level and inside acceptance and handovers', async () => {
    const file = taskFile(home, 'keep');
    await mkdir(taskDir(home, 'keep'), { recursive: true, mode: 0o700 });
    const original = {
      slug: 'keep',
      driverSid: 'sid-1',
      fromTheFuture: { nested: [1, { deep: true }], s: 'x' },
      acceptance: [{ text: 't', addedBy: 'sid-l', addedAt: '2024-01-01T00:00:00Z', priority: 'high' }],
      handovers: [{ from: 'a', to: 'b', at: '2024-01-01T00:00:00Z', reason: 'r', note: 'kept' }],
      zzz: null,
    };
    await writeFile(file, JSON.stringify(original), { mode: 0o600 });
    await updateTask(home, 'keep', (t) => ({ ...t!, label: 'one' }));
    await updateTask(home, 'keep', (t) => ({
      ...t!,
      acceptance: [...(t!.acceptance ?? []), { text: 'u', addedBy: 'sid-1', addedAt: 'now' }],
    }));
    const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(raw.fromTheFuture).toEqual(original.fromTheFuture);
    expect(raw.zzz).toBeNull();
    expect(raw.handovers).toEqual(original.handovers);
    expect((raw.acceptance as unknown[])[0]).toEqual(original.acceptance[0]);
    expect(raw.label).toBe('one');
  });

  it('listTasks lists valid tasks and reports invalid ones without throwing', async () => {
    await create('b-ok');
    await create('a-ok');
    await mkdir(taskDir(home, 'bad'), { recursive: true });
    await writeFile(taskFile(home, 'bad'), '{"slug": ');
    await mkdir(taskDir(home, 'empty-dir'), { recursive: true });
    await mkdir(join(tasksDir(home), 'Not.A.Slug'), { recursive: true });
    await writeFile(join(tasksDir(home), 'Not.A.Slug', 'task.json'), '{"slug":"x"}');
    const entries = await listTasks(home);
    expect(entries.map((e) => e.slug)).toEqual(['a-ok', 'b-ok', 'bad']);
    const bad = entries.find((e) => e.slug === 'bad')!;
    expect(bad.error).toBeInstanceOf(TaskFileError);
    expect(bad.error?.file).toBe(taskFile(home, 'bad'));
    expect(await listTasks(join(tmp.path, 'no-home'))).toEqual([]);
  });
});

describe('an invalid task.json is never overwritten', () => {
  const invalid: [string, string, RegExp][] = [
    ['bad JSON', '{"slug": "bad", "driverSid": ', /not valid JSON .*position 29/],
    ['bad JSON (token)', '{"slug": "bad", "driverSid": nope}', /not valid JSON .*position 30/],
    ['valid JSON failing the schema', '{"slug": "bad", "driverSid": 42, "keep": "me"}', /invalid task record at driverSid/],
    ['a bad nonce', '{"slug": "bad", "driverSid": "", "spawnNonce": "ABC"}', /invalid task record at spawnNonce/],
    ['a bad acceptance item', '{"slug": "bad", "acceptance": [{"text": "t"}]}', /invalid task record at acceptance\.0\.addedBy/],
    ['an empty file', '', /not valid JSON/],
  ];

  it.each(invalid)('%s: stays byte-for-byte and the error names the file and the problem', async (_what, text, problem) => {
    const dir = taskDir(home, 'bad');
    const file = taskFile(home, 'bad');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(file, text, { mode: 0o640 });
    const before = await stat(file);
    for (const opts of [{}, { create: true }]) {
      let called = false;
      let caught: unknown;
      try {
        await updateTask(
          home,
          'bad',
          () => {
            called = true;
            return { slug: 'bad', driverSid: 'overwritten' };
          },
          opts,
        );
      } catch (err) {
        caught = err;
      }
      expect(called).toBe(false);
      expect(caught).toBeInstanceOf(TaskFileError);
      expect((caught as TaskFileError).file).toBe(file);
      expect((caught as TaskFileError).message).toContain(file);
      expect((caught as TaskFileError).problem).toMatch(problem);
      await expect(readTask(home, 'bad')).rejects.toBeInstanceOf(TaskFileError);
    }
    expect(await readFile(file, 'utf8')).toBe(text);
    const after = await stat(file);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.mode & 0o777).toBe(0o640);
    // No lock or temp file left behind.
    expect((await readdir(dir)).sort()).toEqual(['task.json']);
  });
});

describe('the lock', () => {
  it('a lock left by a dead process is broken', async () => {
    await create('a');
    const pid = await deadPid();
    await writeFile(join(taskDir(home, 'a'), '.lock'), `${pid} 12345\n`);
    const t = await updateTask(home, 'a', (x) => ({ ...x!, label: 'after stale' }));
    expect(t?.label).toBe('after stale');
    expect(await readdir(taskDir(home, 'a'))).toEqual(['task.json']);
  });

  it('a lock whose pid now belongs to another process (start time differs) is broken', async () => {
    await create('a');
    const ticks = procStartTicks(process.pid);
    expect(ticks).not.toBeNull();
    await writeFile(join(taskDir(home, 'a'), '.lock'), `${process.pid} ${ticks! + 1}\n`);
    const t = await updateTask(home, 'a', (x) => ({ ...x!, label: 'after reuse' }));
    expect(t?.label).toBe('after reuse');
  });

  it('a garbage lock file is broken', async () => {
    await create('a');
    await writeFile(join(taskDir(home, 'a'), '.lock'), 'not a pid\n');
    expect((await updateTask(home, 'a', (x) => ({ ...x!, label: 'ok' })))?.label).toBe('ok');
  });

  it('an empty lock file left by a process killed before it wrote its pid is broken once it is old', async () => {
    await create('a');
    const lock = join(taskDir(home, 'a'), '.lock');
    await writeFile(lock, '');
    // A fresh empty lock is one being written right now: it is respected.
    await expect(withDirLock(taskDir(home, 'a'), async () => 'too early', { timeoutMs: 300 })).rejects.toThrow(/could not lock/);
    expect(await readFile(lock, 'utf8')).toBe('');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const t = await withDirLock(taskDir(home, 'a'), async () => 'got it', { timeoutMs: 3000 });
    expect(t).toBe('got it');
  });

  it('a lock held by a live process times out naming the holder', async () => {
    await create('a');
    const w = startWorker(['hold', home, 'a']);
    await w.line('locked');
    await expect(withDirLock(taskDir(home, 'a'), async () => 'never', { timeoutMs: 300 })).rejects.toThrow(
      new RegExp(`could not lock .*held by pid ${w.child.pid}`),
    );
    w.child.stdin!.end();
    await w.exit;
  });

  it('a lock held by a live process blocks an update until it is released', async () => {
    await create('a', { n: 0 });
    const w = startWorker(['hold', home, 'a']);
    await w.line('locked');
    const held = await readFile(join(taskDir(home, 'a'), '.lock'), 'utf8');
    expect(held).toBe(`${w.child.pid} ${procStartTicks(w.child.pid!)}\n`);

    let releasedAt = 0;
    let ranAt = 0;
    let waits = 0;
    const update = updateTask(
      home,
      'a',
      (t) => {
        ranAt = Date.now();
        return { ...t!, n: 1 };
      },
      { onHeld: () => waits++ },
    );
    // It found the lock held, and waited for it more than once: it tried, and was held back.
    await waitFor(() => waits >= 3 || ranAt !== 0, 'the update to find the lock held', 10_000);
    expect(ranAt).toBe(0);
    expect((await readTask(home, 'a'))?.n).toBe(0);
    releasedAt = Date.now();
    w.child.stdin!.write('release\n');
    await w.line('released');
    await update;
    expect(ranAt).toBeGreaterThanOrEqual(releasedAt);
    expect((await readTask(home, 'a'))?.n).toBe(1);
    expect(await w.exit).toBe(0);
  });
});

describe('concurrency', () => {
  it('8 processes x 50 locked increments of one field land: 400', async () => {
    await create('race', { counter: 0, keep: { me: true } });
    const workers = Array.from({ length: 8 }, () => startWorker(['increment', home, 'race', 'counter', '50']));
    const codes = await Promise.all(workers.map((w) => w.exit));
    expect(codes).toEqual(Array(8).fill(0));
    const t = (await readTask(home, 'race')) as Record<string, unknown>;
    expect(t.counter).toBe(400);
    expect(t.keep).toEqual({ me: true });
    expect(await readdir(taskDir(home, 'race'))).toEqual(['task.json']);
  }, 120_000);

  it('a writer killed with SIGKILL mid-write leaves a task.json that parses (old or new, never torn)', async () => {
    await create('torn', { counter: 0 });
    let last = 0;
    for (let round = 0; round < 5; round++) {
      const w = startWorker(['write-loop', home, 'torn', 'counter']);
      await w.line('ready');
      await sleep(50 + Math.floor(Math.random() * 200));
      w.child.kill('SIGKILL');
      await w.exit;
      const text = await readFile(taskFile(home, 'torn'), 'utf8');
      const t = (await readTask(home, 'torn')) as Record<string, unknown>;
      expect(typeof t.counter).toBe('number');
      expect(t.counter as number).toBeGreaterThan(last);
      last = t.counter as number;
      expect(text.endsWith('}\n')).toBe(true);
      expect(await mode(taskFile(home, 'torn'))).toBe(0o600);
    }
    // The next writer breaks the dead writer's lock and the store carries on.
    const t = await updateTask(home, 'torn', (x) => ({ ...x!, counter: last + 100 }));
    expect((t as Record<string, unknown>).counter).toBe(last + 100);
  }, 120_000);
});
