// restore on a real private tmux server with the stand-in agent (docs/ownership.md#restore):
// every gone Driver back in its conversation, the bad input refused task by task,
// a session tmux-resurrect left used, and two restores at once restoring each task once.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env';
import { json, makeWorld, type World } from './fixture';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.close();
});

async function typeIn(session: string, line: string): Promise<void> {
  await w.server.run(['send-keys', '-t', `=${session}:`, '-l', line]);
  await w.server.run(['send-keys', '-t', `=${session}:`, 'Enter']);
}

const sessions = async () => (await w.server.run(['list-sessions', '-F', '#{session_name}'])).split('\n').filter(Boolean);

/** What the stand-in was started with, once it has started. */
async function record(file: string): Promise<{ argv: string[]; cwd: string; pid: number }> {
  return JSON.parse(await waitFor(() => readFile(file, 'utf8').catch(() => ''), `record ${file}`));
}

/** A Driver spawned, then /clear typed in it: returns the id after the clear. */
async function clearedDriver(slug: string, rec: string): Promise<string> {
  const r = await w.fleet(['spawn', slug, '--cmd', w.standInCmd({ STAND_IN_RECORD: rec })]);
  expect(r.exitCode, r.stderr).toBe(0);
  const first = await w.waitOwner(slug);
  await typeIn(`op-${slug}`, '/clear');
  return waitFor(async () => {
    const t = await w.readTask(slug);
    return t.driverSid !== first && t.handovers?.at(-1)?.reason === 'clear' ? t.driverSid : '';
  }, `${slug} to follow its /clear`) as Promise<string>;
}

/** A task whose Driver is gone (no process, no session carries its id), written as the record of a real one. */
async function goneTask(slug: string, extra: Record<string, unknown> = {}): Promise<void> {
  await w.writeTask(slug, { driverSid: `${slug}-0000-4000-8000-000000000000`, driverAgent: 'claude', driverPane: `op-${slug}`, cwd: w.fe.root, agentCommand: w.standInCmd({ STAND_IN_NO_STAMP: '1' }), ...extra });
}

describe('restore', () => {
  it('after the server lost every Driver: each back in a new session of its name, resuming the id after /clear; owner 0; one session each', async () => {
    const recA = join(w.fe.root, 'a.rec');
    const recB = join(w.fe.root, 'b.rec');
    const a = await clearedDriver('ra', recA);
    const b = await clearedDriver('rb', recB);
    const pids = [(await record(recA)).pid, (await record(recB)).pid];
    // Their sessions go, and with them the agents (tmux hangs up on them).
    await w.server.run(['kill-session', '-t', '=op-ra:']);
    await w.server.run(['kill-session', '-t', '=op-rb:']);
    await waitFor(() => pids.every((p) => !processAlive(p)), 'the agents gone');
    await writeFile(recA, '');
    await writeFile(recB, '');

    const dry = await w.fleet(['restore', '--dry-run']);
    expect(dry.exitCode, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would restore ra: would resume conversation ${a} in a new tmux session op-ra`);
    expect(dry.stdout.trim().split('\n').at(-1)).toBe('2 tasks can be restored');
    expect(await sessions()).not.toContain('op-ra');

    const r = await w.fleet(['restore']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`restored ra: resumed conversation ${a} in a new tmux session op-ra`);
    expect(r.stdout).toContain(`restored rb: resumed conversation ${b} in a new tmux session op-rb`);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('restored 2 tasks');
    expect((await record(recA)).argv).toEqual(['--resume', a]);
    expect((await record(recB)).argv).toEqual(['--resume', b]);
    // The resumed agent stamps its id: the task is its again, and the record says resume.
    await waitFor(async () => (await w.readTask('ra')).driverSid === a, 'ra filled again');
    const t = await w.readTask('ra');
    expect(t.handovers?.at(-1)).toMatchObject({ from: a, to: a, reason: 'resume', pane: 'op-ra' });
    expect((await w.fleet(['owner', 'ra', '--as', a])).exitCode).toBe(0);
    expect((await sessions()).filter((s) => s === 'op-ra' || s === 'op-rb').sort()).toEqual(['op-ra', 'op-rb']);
    // Nothing left to do.
    const again = await w.fleet(['restore', '--json']);
    expect(json(again)).toMatchObject({ restorable: 0, refused: 0 });
  });
});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
