// takeover: the asker becomes the Driver; refused while the owner may be live, unless --force.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, makeWorld, type World } from '../helpers/stand-in-world';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.close();
});

const take = (slug: string, as: string, ...more: string[]) => w.fleet(['takeover', slug, '--as', as, ...more]);

describe('takeover', () => {
  it('refused with exit 9 and no change while the owner is live; --force takes it with a force handover', async () => {
    await w.liveRow('boss');
    await w.writeTask('t1', { driverSid: 'boss', futureKey: 'x' });
    const before = await readFile(w.taskPath('t1'), 'utf8');
    const r = await take('t1', 'me');
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toMatch(/refused.*--force/);
    expect(await readFile(w.taskPath('t1'), 'utf8')).toBe(before);

    const myPid = await w.liveRow('me');
    const f = await take('t1', 'me', '--force', '--json');
    expect(f.exitCode, f.stderr).toBe(0);
    expect(json(f)).toMatchObject({ from: 'boss', epoch: 1, reason: 'force', already: false });
    const t = await w.readTask('t1');
    expect(t).toMatchObject({ driverSid: 'me', priorDriverSid: 'boss', driverEpoch: 1, futureKey: 'x', driverPid: myPid });
    expect(t.handovers).toEqual([expect.objectContaining({ from: 'boss', to: 'me', reason: 'force' })]);
    expect((await w.fleet(['owner', 't1', '--as', 'me'])).exitCode).toBe(0);
    expect((await w.fleet(['owner', 't1', '--as', 'boss'])).exitCode).toBe(9);
  });

  it('takes a task whose owner is gone (reason takeover); unknown liveness is refused', async () => {
    await w.deadRow('ghost');
    await w.writeTask('t2', { driverSid: 'ghost' });
    const notADir = join(w.fe.root, 'f');
    await writeFile(notADir, '');
    const unknown = await w.fleet(['takeover', 't2', '--as', 'me'], { env: { TMUX_FLEET_REGISTRY: notADir } });
    expect(unknown.exitCode).toBe(9);
    const r = await take('t2', 'me');
    expect(r.exitCode, r.stderr).toBe(0);
    const t = await w.readTask('t2');
    expect(t).toMatchObject({ driverSid: 'me', priorDriverSid: 'ghost', driverEpoch: 1 });
    expect(t.handovers?.[0]).toMatchObject({ from: 'ghost', to: 'me', reason: 'takeover' });
  });

  it('the owner taking over its own task is a no-op, exit 0', async () => {
    await w.writeTask('t3', { driverSid: 'me' });
    const before = await readFile(w.taskPath('t3'), 'utf8');
    const r = await take('t3', 'me');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/already owns it/);
    expect(await readFile(w.taskPath('t3'), 'utf8')).toBe(before);
  });

  it('pending: a booting spawned Driver is protected; a gone session is not; the nonce goes and unknown keys stay', async () => {
    const n = randomBytes(16).toString('hex');
    await w.server.newSession('op-t4');
    await w.server.run(['set-option', '-t', '=op-t4:', '@spawn_nonce', n]);
    await w.writeTask('t4', { driverSid: '', driverPane: 'op-t4', spawnNonce: n, futureKey: [1] });
    const before = await readFile(w.taskPath('t4'), 'utf8');
    expect((await take('t4', 'me')).exitCode).toBe(9);
    expect(await readFile(w.taskPath('t4'), 'utf8')).toBe(before);
    await w.server.run(['kill-session', '-t', '=op-t4:']);
    const r = await take('t4', 'me');
    expect(r.exitCode, r.stderr).toBe(0);
    const t = await w.readTask('t4');
    expect(t.spawnNonce).toBeUndefined();
    expect(t).toMatchObject({ driverSid: 'me', driverEpoch: 1, futureKey: [1], priorDriverSid: '' });
  });

  it('the asker from $TMUX_PANE records its session as the handover pane; no asker is a usage error', async () => {
    await w.writeTask('t5', { driverSid: 'ghost2' });
    await w.server.newSession('mine');
    await w.server.run(['set-option', '-t', '=mine:', '@claude_session_id', 'me']);
    const pane = await w.display('mine', '#{pane_id}');
    const r = await w.fleet(['takeover', 't5'], { env: { TMUX_PANE: pane } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await w.readTask('t5')).handovers?.[0]).toMatchObject({ to: 'me', pane: 'mine' });
    const none = await w.fleet(['takeover', 't5']);
    expect(none.exitCode).toBe(2);
  });

  it('a corrupt task.json: one line naming the file, file unchanged; a missing task fails', async () => {
    const dir = join(w.fe.home, 'tasks', 'torn');
    await mkdir(dir, { recursive: true });
    const text = '{"slug":"torn",';
    await writeFile(join(dir, 'task.json'), text);
    const r = await take('torn', 'me', '--force');
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(join(dir, 'task.json'));
    expect(await readFile(join(dir, 'task.json'), 'utf8')).toBe(text);
    expect((await take('missing', 'me')).exitCode).toBe(1);
  });

  it('a task that does not exist is said first, before any asker is asked for (did you mean, exit 1)', async () => {
    await w.writeTask('fix-login', { driverSid: 'ghost' });
    // No --as, no $CLAUDE_CODE_SESSION_ID, no $TMUX_PANE: the slug is wrong before the asker is missing.
    const r = await w.fleet(['takeover', 'fix-logn']);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe('tmux-fleet: no task "fix-logn" (did you mean fix-login?)');
    const none = await w.fleet(['takeover', 'nosuch']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr.trim()).toBe('tmux-fleet: no task "nosuch" (tasks: fix-login)');
  });
});
