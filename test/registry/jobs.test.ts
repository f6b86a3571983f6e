// The job state file (<config>/jobs/<jobId>/state.json): where it is found,
// what is read of it (the one safe reader: no link, no FIFO, a size cap, only
// job-id-shaped names), and how it joins the rows (by job id only).
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dir as tmpDir, type DirectoryResult } from 'tmp-promise';
import {
  attachJobStates,
  CachedJobStates,
  jobNeeds,
  jobsDirOf,
  MAX_JOB_STATE_BYTES,
  parseJobState,
  readJobStates,
  rowJobIds,
  stateFileSignature,
  withJobStates,
} from '../../src/registry/jobs';
import type { LiveRow } from '../../src/registry/liveness';
import type { RegistryRow } from '../../src/registry/schema';

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} blocked for ${ms} ms`)), ms))]);

/** A state file as Claude Code 2.1.333 writes one while a job waits for a permission (fields it has beside these left out). */
const BLOCKED = {
  state: 'working',
  detail: 'Listing the root directory',
  tempo: 'blocked',
  inFlight: { tasks: 0, queued: 0, kinds: [] },
  needs: 'approve Bash: ls -la /',
  output: null,
  intent: 'slowly read the disk',
  name: 'Slowly read the disk',
  sessionId: '44a236dc-0000-4000-8000-000000000000',
  updatedAt: '2026-12-01T15:51:32.641Z',
};

let d: DirectoryResult;
beforeAll(async () => {
  d = await tmpDir({ unsafeCleanup: true, prefix: 'fleet-jobs-' });
});
afterAll(async () => {
  await d.cleanup();
});

async function jobsDir(name: string): Promise<string> {
  const dir = join(d.path, name, 'jobs');
  await mkdir(dir, { recursive: true });
  return dir;
}

async function writeState(dir: string, jobId: string, state: unknown): Promise<string> {
  await mkdir(join(dir, jobId), { recursive: true });
  const file = join(dir, jobId, 'state.json');
  await writeFile(file, typeof state === 'string' ? state : JSON.stringify(state));
  return file;
}

const r = (row: Partial<RegistryRow> & { pid: number; sessionId: string }, alive = true): LiveRow => ({ row, alive, liveness: alive ? 'live' : 'gone' });

describe('jobsDirOf', () => {
  it.each([
    ['/home/u/.claude/sessions', '/home/u/.claude/jobs'],
    ['/tmp/x/claude/sessions/', '/tmp/x/claude/jobs'],
    ['/srv/registry', '/srv/jobs'],
  ])('%s -> %s (the registry directory\'s sibling)', (registry, jobs) => {
    expect(jobsDirOf(registry)).toBe(jobs);
  });
});

describe('jobNeeds: a wait is tempo blocked with a needs sentence', () => {
  it.each([
    [{ tempo: 'blocked', needs: 'approve Bash: ls -la /' }, 'approve Bash: ls -la /'],
    [{ tempo: 'blocked', needs: 'send a prompt to start' }, 'send a prompt to start'],
    [{ tempo: 'blocked', needs: '  ' }, null],
    [{ tempo: 'blocked', needs: null }, null],
    [{ tempo: 'active', needs: 'approve Bash: ls -la /' }, null],
    [{ tempo: 'idle', needs: null }, null],
    [null, null],
  ])('%j -> %j', (job, want) => {
    expect(jobNeeds(job)).toBe(want);
  });
});

describe('parseJobState', () => {
  it('reads the fields tmux-fleet uses; absent and null ones are null', () => {
    expect(parseJobState('44a236dc', JSON.stringify(BLOCKED))).toEqual({
      jobId: '44a236dc',
      state: 'working',
      tempo: 'blocked',
      needs: 'approve Bash: ls -la /',
      detail: 'Listing the root directory',
      intent: 'slowly read the disk',
      name: 'Slowly read the disk',
      sessionId: '44a236dc-0000-4000-8000-000000000000',
      updatedAt: '2026-12-01T15:51:32.641Z',
    });
    expect(parseJobState('x', JSON.stringify({ state: 'working', tempo: 'active', needs: null }))).toMatchObject({ tempo: 'active', needs: null, intent: null });
  });

  it.each([
    ['not JSON', '{"tempo": "blo'],
    ['an array', '[1, 2]'],
    ['a wrong type', JSON.stringify({ tempo: 'blocked', needs: 42 })],
    ['null', 'null'],
  ])('%s: no state', (_what, text) => {
    expect(parseJobState('x', text)).toBeNull();
  });
});

describe('readJobStates', () => {
  it('reads the state file of each job id it is given, and only those', async () => {
    const dir = await jobsDir('plain');
    await writeState(dir, '44a236dc', BLOCKED);
    await writeState(dir, 'ffff0000', { state: 'working', tempo: 'idle' });
    const got = readJobStates(dir, ['44a236dc', 'abcd1234']);
    expect([...got.keys()]).toEqual(['44a236dc']);
    expect(got.get('44a236dc')?.needs).toBe('approve Bash: ls -la /');
  });

  it('never builds a path from an id that is not job-id-shaped', async () => {
    const dir = await jobsDir('shapes');
    // A state file one level up: `..` must not reach it.
    await writeState(join(dir, '..'), 'up', BLOCKED);
    await writeState(dir, 'a.b', BLOCKED);
    expect(readJobStates(dir, ['..', '../up', 'a.b', '', '.', 'x/y', '-'.repeat(65)]).size).toBe(0);
  });

  it('does not follow a link: a linked state file, or a job directory that is a link, is no state', async () => {
    const dir = await jobsDir('links');
    const elsewhere = await writeState(join(d.path, 'links'), 'real', BLOCKED);
    await mkdir(join(dir, 'aaaa0001'));
    await symlink(elsewhere, join(dir, 'aaaa0001', 'state.json'));
    await symlink(join(d.path, 'links', 'real'), join(dir, 'aaaa0002'));
    expect(readJobStates(dir, ['aaaa0001', 'aaaa0002']).size).toBe(0);
  });

  it('does not block on a FIFO, and skips a file over the cap or a directory', async () => {
    const dir = await jobsDir('odd');
    await mkdir(join(dir, 'f1f0f1f0'));
    execFileSync('mkfifo', [join(dir, 'f1f0f1f0', 'state.json')]);
    await writeState(dir, 'b19b19b1', JSON.stringify({ ...BLOCKED, detail: 'x'.repeat(MAX_JOB_STATE_BYTES) }));
    await mkdir(join(dir, 'd1d1d1d1', 'state.json'), { recursive: true });
    await writeState(dir, 'c0c0c0c0', '{"tempo": "blo');
    const got = await withTimeout(Promise.resolve().then(() => readJobStates(dir, ['f1f0f1f0', 'b19b19b1', 'd1d1d1d1', 'c0c0c0c0'])), 5000, 'readJobStates');
    expect(got.size).toBe(0);
  });

  it('a missing jobs directory is no state, not an error', () => {
    expect(readJobStates(join(d.path, 'nowhere', 'jobs'), ['44a236dc']).size).toBe(0);
  });
});

describe('CachedJobStates', () => {
  it('keeps what an unchanged file said (same inode, size and mtime), reads a changed one again, forgets a removed one', async () => {
    const dir = await jobsDir('cached');
    const file = await writeState(dir, '44a236dc', BLOCKED);
    const t1 = new Date('2026-01-01T00:00:00Z');
    await utimes(file, t1, t1);
    const cache = new CachedJobStates(dir);
    expect(cache.read(['44a236dc']).get('44a236dc')?.needs).toBe('approve Bash: ls -la /');
    // Rewritten in place with a sentence of the same length and the old mtime: not read again.
    await writeFile(file, JSON.stringify({ ...BLOCKED, needs: 'approve Bash: ls -la ~' }));
    await utimes(file, t1, t1);
    expect(cache.read(['44a236dc']).get('44a236dc')?.needs).toBe('approve Bash: ls -la /');
    const t2 = new Date('2026-01-01T00:00:01Z');
    await utimes(file, t2, t2);
    expect(cache.read(['44a236dc']).get('44a236dc')?.needs).toBe('approve Bash: ls -la ~');
    await rm(file);
    expect(cache.read(['44a236dc']).size).toBe(0);
    expect(stateFileSignature(dir, '44a236dc')).toBe('');
  });
});

describe('joining rows and state files', () => {
  it('joins by job id only: a job row gets its state; a tab that parks the same job id, or a row of no job, does not', async () => {
    const dir = await jobsDir('join');
    await writeState(dir, '44a236dc', { ...BLOCKED, sessionId: 'some-other-session' });
    const rows = [
      r({ pid: 1, sessionId: 'tab', kind: 'interactive', status: 'busy', parkedJobId: '44a236dc' }),
      r({ pid: 2, sessionId: '44a236dc-1', kind: 'bg', status: 'idle', jobId: '44a236dc' }),
      r({ pid: 3, sessionId: 'loose', kind: 'interactive', status: 'idle' }),
    ];
    expect(rowJobIds(rows)).toEqual(['44a236dc']);
    const joined = attachJobStates(rows, join(d.path, 'join', 'sessions'));
    expect(joined.map((x) => x.job?.needs ?? null)).toEqual([null, 'approve Bash: ls -la /', null]);
    // Nothing to join: the same rows back.
    expect(withJobStates(rows, new Map())).toBe(rows);
  });
});
