// A Driver in its boot window is pending, whatever its agent
// (docs/status.md#segments): from the moment spawn creates its session to its
// stamp, #{fleet_owner} reads `◌ <slug> pending`, never `? <slug> cannot
// tell`, even while spawn has not yet written the task's record (it holds the
// task's lock from the session's creation to that write). `cannot tell` only
// once that spawn is known to have died without its record. A real tmux
// server and supervisor; every value the segment is set to is read (a hook
// logs each write), not only the last.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn as spawnProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { recordOptionWrites, type OptionWrites } from '../helpers/option-writes';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { sq, startServer, type TestServer } from '../helpers/tmux-server';
import { procStartTicks } from '../../src/proc';

let server: TestServer;
let fenv: FleetEnv;
let supervisor: RunningSupervisor;
let writes: OptionWrites;

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  writes = await recordOptionWrites((args) => server.run(args), '@fleet-owner');
  supervisor = await startSupervisor(server, fenv);
});

afterAll(async () => {
  await supervisor?.stop();
  await server?.kill();
  await fenv?.cleanup();
});

/** The segment's texts as written, markup dropped, empty ones and repeats left out. */
async function shown(session: string): Promise<string[]> {
  const texts = (await writes.values(session)).map((v) => v.replace(/#\[[^\]]*\]/g, '').trim()).filter(Boolean);
  return texts.filter((t, i) => t !== texts[i - 1]);
}

const spawn = async (slug: string, cmd: string, extra: string[] = []) => {
  const r = await runFleet(['spawn', slug, '--cmd', cmd, ...extra], { env: fenv.env });
  expect(r.exitCode, r.stderr).toBe(0);
  return `op-${slug}`;
};

describe('the boot window, every value written', () => {
  it('a plain command that never stamps: pending from the first value on', async () => {
    const session = await spawn('plain', 'sh -c "exec sleep 86400"');
    await waitFor(async () => (await shown(session)).length > 0, 'the first value');
    // Whatever the wakes in between wrote, they are all pending, and so is the last.
    await waitFor(async () => (await server.run(['show-options', '-qv', '-t', `=${session}:`, '@fleet-owner'])).includes('pending'), 'pending');
    expect(await shown(session)).toEqual(['◌ plain pending']);
  });

  it('a command that stamps itself at once (before spawn has written the record): pending, then owner', async () => {
    const stamp = `${sq(process.execPath)} ${sq(FLEET_BIN)} stamp --sid loop-0000-4000-8000-00000000000a`;
    const session = await spawn('loop', `sh -c ${sq(`${stamp}; while sleep 1; do :; done`)}`);
    await waitFor(async () => (await shown(session)).includes('● owner loop'), 'owner', 15_000);
    const values = await shown(session);
    expect(values, values.join(' | ')).not.toContain('? loop cannot tell');
    expect(values.at(-1)).toBe('● owner loop');
    expect(values.slice(0, -1).every((v) => v === '◌ loop pending'), values.join(' | ')).toBe(true);
  });

  it('a respawn (--replace) of a task another Driver owned: pending, never the old owner or cannot tell', async () => {
    const session = await spawn('again', 'sh -c "exec sleep 86400"');
    await waitFor(async () => (await shown(session)).includes('◌ again pending'), 'pending');
    await server.run(['set-option', '-t', `=${session}:`, '@claude_session_id', 'old0-0000-4000-8000-00000000000b']);
    await runFleet(['sweep'], { env: fenv.env });
    await waitFor(async () => (await shown(session)).at(-1) === '● owner again', 'owner');
    const before = (await shown(session)).length;
    await spawn('again', 'sh -c "exec sleep 86400"', ['--replace']);
    await waitFor(async () => (await shown(session)).at(-1) === '◌ again pending', 'pending again');
    expect((await shown(session)).slice(before), (await shown(session)).join(' | ')).toEqual(['◌ again pending']);
  });

  it('a spawn that died before writing its record: pending while its lock is held, then cannot tell', async () => {
    // What a spawn killed between its tmux call and its write leaves: a session marked with a nonce no record holds,
    // and the task's lock of a process that is gone.
    const holder = spawnProcess('sleep', ['86400'], { stdio: 'ignore' });
    const pid = holder.pid!;
    const dir = join(fenv.home, 'tasks', 'orphan');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, '.lock'), `${pid} ${procStartTicks(pid)}\n`, { mode: 0o600 });
    // In one tmux call, as spawn makes it: the wake its creation brings sees the marks (setting an option fires no wake).
    await server.tmux.chain([
      ['new-session', '-d', '-s', 'op-orphan', 'sleep', '86400'],
      ['set-option', '-t', '=op-orphan:', '@spawn_nonce', 'ab'.repeat(16)],
      ['set-option', '-t', '=op-orphan:', '@fleet-task', 'orphan'],
    ]);
    await waitFor(async () => (await shown('op-orphan')).includes('◌ orphan pending'), 'pending while the lock is held');
    holder.kill('SIGKILL');
    await waitFor(async () => (await shown('op-orphan')).at(-1) === '? orphan cannot tell', 'cannot tell once its spawn is gone', 15_000);
    expect(await shown('op-orphan')).toEqual(['◌ orphan pending', '? orphan cannot tell']);
  });
});
