// The supervisor's caching readers: what changed is read again, nothing else;
// removed rows go; a torn row is retried; liveness follows a process's death.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { dir as tmpDir } from 'tmp-promise';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedRegistryReader } from '../../src/registry/reader';
import { LivenessReader } from '../../src/registry/liveness';
import { CachedTaskLister } from '../../src/tasks/store';
import { procStartLstart } from '../../src/proc';

let root: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  root = await tmpDir({ unsafeCleanup: true });
});
afterEach(async () => root.cleanup());

const row = (pid: number, sessionId: string, extra: Record<string, unknown> = {}) => JSON.stringify({ pid, sessionId, ...extra });
/** Replaces a file as writers do (temp + rename), so its inode changes. */
async function replace(file: string, text: string) {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

describe('CachedRegistryReader', () => {
  it('sees new, changed and removed rows on a full read, and keeps unknown keys', async () => {
    const r = new CachedRegistryReader(root.path);
    await writeFile(join(root.path, '11.json'), row(11, 'a', { extra: 1 }));
    await writeFile(join(root.path, '12.json'), row(12, 'b'));
    expect((await r.read()).entries.map((e) => e.row.sessionId)).toEqual(['a', 'b']);
    await replace(join(root.path, '11.json'), row(11, 'a2'));
    await rm(join(root.path, '12.json'));
    await writeFile(join(root.path, '13.json'), row(13, 'c'));
    const snap = await r.read();
    expect(snap.entries.map((e) => e.row.sessionId)).toEqual(['a2', 'c']);
  });

  it('with the names a watch reported, reads only those files', async () => {
    const r = new CachedRegistryReader(root.path);
    await writeFile(join(root.path, '11.json'), row(11, 'a'));
    await writeFile(join(root.path, '12.json'), row(12, 'b'));
    await r.read();
    // Both change on disk, only one is reported: the other keeps its cached row.
    await replace(join(root.path, '11.json'), row(11, 'a2'));
    await replace(join(root.path, '12.json'), row(12, 'b2'));
    expect((await r.read(new Set(['11.json']))).entries.map((e) => e.row.sessionId)).toEqual(['a2', 'b']);
    await rm(join(root.path, '12.json'));
    expect((await r.read(new Set(['12.json', 'x.key', '.12.json.tmp']))).entries.map((e) => e.row.sessionId)).toEqual(['a2']);
    // A full read agrees.
    expect((await r.read(null)).entries.map((e) => e.row.sessionId)).toEqual(['a2']);
  });

  it('counts a malformed row, and reads it again once it is whole', async () => {
    const r = new CachedRegistryReader(root.path, { retryDelayMs: 1 });
    await writeFile(join(root.path, '11.json'), '{"pid": 11, "sessionId"');
    const torn = await r.read();
    expect([torn.entries.length, torn.malformed]).toEqual([0, 1]);
    await writeFile(join(root.path, '11.json'), row(11, 'a'));
    const whole = await r.read(new Set(['11.json']));
    expect([whole.entries.length, whole.malformed]).toEqual([1, 0]);
  });

  it('an unreadable directory is not readable; a missing one is empty', async () => {
    expect((await new CachedRegistryReader(join(root.path, 'none')).read()).readable).toBe(true);
    await writeFile(join(root.path, 'file'), '');
    expect((await new CachedRegistryReader(join(root.path, 'file')).read()).readable).toBe(false);
  });
});

describe('LivenessReader', () => {
  it('a live process with its real start time is alive; after it dies it is not', async () => {
    const sleeper = execa('sleep', ['60'], { reject: false });
    const pid = sleeper.pid as number;
    const start = procStartLstart(pid) as string;
    const cache = new LivenessReader();
    const entries = [{ row: { pid, sessionId: 'x', procStart: start } }, { row: { pid, sessionId: 'y', procStart: 'Thu Jan 1 00:00:00 1970' } }];
    expect((await cache.liveRows({ entries })).map((r) => r.alive)).toEqual([true, false]);
    sleeper.kill('SIGKILL');
    await sleeper;
    expect((await cache.liveRows({ entries })).map((r) => r.alive)).toEqual([false, false]);
  });
});

describe('CachedTaskLister', () => {
  it('sees a rewritten, an added, a removed and a corrupt task', async () => {
    const home = root.path;
    const write = async (slug: string, text: string) => {
      await mkdir(join(home, 'tasks', slug), { recursive: true });
      await replace(join(home, 'tasks', slug, 'task.json'), text);
    };
    const lister = new CachedTaskLister(home);
    await write('a', JSON.stringify({ slug: 'a', driverSid: 'one' }));
    expect((await lister.list()).map((t) => t.task?.driverSid)).toEqual(['one']);
    await write('a', JSON.stringify({ slug: 'a', driverSid: 'two' }));
    await write('b', '{ not json');
    const next = await lister.list();
    expect(next.map((t) => [t.slug, t.task?.driverSid ?? null, t.error ? 'error' : null])).toEqual([
      ['a', 'two', null],
      ['b', null, 'error'],
    ]);
    await rm(join(home, 'tasks', 'a'), { recursive: true });
    expect((await lister.list()).map((t) => t.slug)).toEqual(['b']);
  });

  it('gives the same list back while no task changed; with the tasks the watches named, looks only at those files', async () => {
    const home = join(root.path, 'named');
    const write = async (slug: string, sid: string) => {
      await mkdir(join(home, 'tasks', slug), { recursive: true });
      await replace(join(home, 'tasks', slug, 'task.json'), JSON.stringify({ slug, driverSid: sid }));
    };
    await write('a', 'one');
    await write('b', 'one');
    const lister = new CachedTaskLister(home);
    const first = await lister.list();
    // Nothing changed: the very same array (a reader tells "the same tasks" by identity).
    expect(await lister.list()).toBe(first);
    expect(await lister.list(new Set())).toBe(first);
    await write('a', 'two');
    await write('b', 'two');
    // Only b named: a is taken as it was (no stat), b is read again.
    const named = await lister.list(new Set(['b']));
    expect(named).not.toBe(first);
    expect(named.map((t) => [t.slug, t.task?.driverSid])).toEqual([
      ['a', 'one'],
      ['b', 'two'],
    ]);
    // A task never listed is read whatever the set says; null looks at every file.
    await write('c', 'one');
    expect((await lister.list(new Set())).map((t) => [t.slug, t.task?.driverSid])).toEqual([
      ['a', 'one'],
      ['b', 'two'],
      ['c', 'one'],
    ]);
    expect((await lister.list(null)).map((t) => t.task?.driverSid)).toEqual(['two', 'two', 'one']);
  });
});
