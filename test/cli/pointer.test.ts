// `tmux-fleet pointer --parent <sid>` through the built helper, with a temp home.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, type FleetEnv } from '../helpers/env';

const PARENT = '9d1c2b3a-1111-4222-8333-444455556666';
let fe: FleetEnv;

async function writeTask(slug: string, record: Record<string, unknown> | string): Promise<void> {
  const dir = join(fe.home, 'tasks', slug);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const text = typeof record === 'string' ? record : JSON.stringify({ slug, ...record }, null, 2);
  await writeFile(join(dir, 'task.json'), text, { mode: 0o600 });
}

const run = (args: string[]) => runFleet(args, { env: fe.env });

beforeEach(async () => {
  fe = await makeFleetEnv();
});
afterEach(async () => {
  await fe.cleanup();
});

describe('tmux-fleet pointer', () => {
  it('prints the one pointer line of the parent with a worktree', async () => {
    await writeTask('parent', {
      driverSid: PARENT,
      label: 'auth $(id) "rework"',
      worktree: '/srv/wt/auth tree',
      branch: 'fleet/parent',
      updatedAt: '2024-05-01T10:00:00.000Z',
    });
    const r = await run(['pointer', '--parent', PARENT]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    // One line (runFleet strips the final newline).
    expect(r.stdout).not.toContain('\n');
    const line = r.stdout;
    expect(line).toContain('session 9d1c2b3a ');
    expect(line).toContain('("auth $(id) \\"rework\\"")');
    expect(line).toContain('worktree "/srv/wt/auth tree" on branch "fleet/parent"');
    expect(line).toMatch(/never write to it/);
  });

  it('newest updatedAt wins among tasks owned by the parent; invalid task files are skipped', async () => {
    await writeTask('old', { driverSid: PARENT, worktree: '/wt/old', branch: 'fleet/old', updatedAt: '2024-01-01T00:00:00.000Z' });
    await writeTask('new', { driverSid: PARENT, worktree: '/wt/new', branch: 'fleet/new', updatedAt: '2024-06-01T00:00:00.000Z' });
    await writeTask('other', { driverSid: 'someone-else', worktree: '/wt/other', branch: 'fleet/other', updatedAt: '2030-01-01T00:00:00.000Z' });
    await writeTask('torn', '{"slug": "torn", "driverSid": "9d1c');
    const r = await run(['pointer', '--parent', PARENT]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('"/wt/new" on branch "fleet/new"');
    expect(r.stdout).not.toContain('/wt/old');
    expect(r.stdout).not.toContain('/wt/other');
  });

  it('prints nothing for a parent whose record has no worktree', async () => {
    await writeTask('plain', { driverSid: PARENT, cwd: '/somewhere', updatedAt: '2024-05-01T10:00:00.000Z' });
    const r = await run(['pointer', '--parent', PARENT]);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('prints nothing for an unknown parent, and for an empty home', async () => {
    await writeTask('pending', { driverSid: '', worktree: '/wt/pending', branch: 'fleet/pending' });
    expect(await run(['pointer', '--parent', 'nobody'])).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const empty = join(fe.root, 'no-such-home');
    expect(await run(['--home', empty, 'pointer', '--parent', PARENT])).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('--json prints one object', async () => {
    await writeTask('parent', { driverSid: PARENT, worktree: '/wt/p', branch: 'fleet/p' });
    const r = await run(['--json', 'pointer', '--parent', PARENT]);
    expect(r.exitCode).toBe(0);
    const obj = JSON.parse(r.stdout) as { parent: string; pointer: string | null };
    expect(obj.parent).toBe(PARENT);
    expect(obj.pointer).toContain('"/wt/p"');
    const none = JSON.parse((await run(['--json', 'pointer', '--parent', 'nobody'])).stdout) as unknown;
    expect(none).toEqual({ parent: 'nobody', pointer: null });
  });

  it.each([[['pointer']], [['pointer', '--parent', '']]])('%j is a usage error (exit 2)', async (args) => {
    const r = await run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--parent/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
