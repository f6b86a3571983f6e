// `owner` on a pending task with the server's supervisor running: the pane read
// is made by the supervisor's control client, fresh for every question, and
// `owner` starts no process. Without an answer it reads tmux itself.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMailboxDir } from '../../src/status/runtime';
import { loadedModules, waitFor } from '../helpers/env';
import { startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { countingTmux } from '../helpers/tmux-server';
import { json, makeWorld, nonce, type World } from './fixture';

let w: World;
let sup: RunningSupervisor | null;
let tmux: { PATH: string; count(): Promise<number> };
beforeEach(async () => {
  w = await makeWorld();
  sup = await startSupervisor(w.server, w.fe);
  await waitFor(() => existsSync(readMailboxDir(w.fe.home, sup!.socketPath)), 'read mailbox');
  tmux = await countingTmux(w.fe.root);
});
afterEach(async () => {
  await sup?.stop();
  await w.close();
});

/** owner --json, with the counting tmux first on PATH: only owner's own calls are counted. */
async function owner(slug: string, as: string) {
  const r = await w.fleet(['owner', slug, '--json', '--as', as], { env: { PATH: tmux.PATH } });
  const a = json<{ verdict: number; owner: string | null; liveness: string | null; via: string | null; reason: string }>(r);
  expect(r.exitCode).toBe(a.verdict);
  return a;
}

describe('owner with a supervisor: the pending read over its control client', () => {
  it('0, 9 and 5 as the decision table says, with no tmux process started by owner', async () => {
    await w.liveRow('sid-me');
    await w.pendingSession('a');
    await w.stamp('a', 'sid-me');
    expect(await owner('a', 'sid-me')).toMatchObject({ verdict: 0, owner: 'sid-me', via: 'pane' });
    expect(await owner('a', 'sid-other')).toMatchObject({ verdict: 9, owner: 'sid-me', liveness: 'live', via: 'pane' });

    await w.pendingSession('boot');
    const boot = await owner('boot', 'sid-me');
    expect(boot).toMatchObject({ verdict: 5, owner: null });
    expect(boot.reason).toMatch(/no stamp yet/);

    await w.writeTask('gone', { driverSid: '', driverPane: 'op-gone', spawnNonce: nonce() });
    expect(await owner('gone', 'sid-me')).toMatchObject({ verdict: 5, owner: null });

    expect(await tmux.count()).toBe(0);
    // The control client the answers came through.
    const clients = await w.server.run(['list-clients', '-F', '#{client_control_mode}']);
    expect(clients.trim().split('\n')).toEqual(['1']);
  });

  it("the asker read from $TMUX_PANE and a liveness read from tmux's stamps go through the supervisor too", async () => {
    await w.pendingSession('p');
    await w.stamp('p', 'sid-me');
    const pane = (await w.server.run(['display-message', '-p', '-t', '=op-p:', '#{pane_id}'])).trim();
    const r = await w.fleet(['owner', 'p', '--json'], { env: { PATH: tmux.PATH, TMUX_PANE: pane } });
    expect(json(r)).toMatchObject({ verdict: 0, asker: 'sid-me', via: 'pane' });

    // A decided task whose owner has no registry row: its liveness is whether a session carries its stamp.
    await w.writeTask('d', { driverSid: 'sid-nowhere', driverPane: 'op-d' });
    expect(await owner('d', 'sid-other')).toMatchObject({ verdict: 9, owner: 'sid-nowhere', liveness: 'gone' });
    expect(await owner('p', 'sid-other')).toMatchObject({ verdict: 9, owner: 'sid-me', liveness: 'live' });
    expect(await tmux.count()).toBe(0);
  });

  it('every answer is a fresh read: a session recreated under the same name is never taken for the spawn', async () => {
    await w.pendingSession('r');
    await w.stamp('r', 'sid-me');
    expect(await owner('r', 'sid-me')).toMatchObject({ verdict: 0 });

    // Same name, another nonce, the asker's stamp: not the spawned session.
    await w.server.run(['kill-session', '-t', '=op-r:']);
    await w.server.newSession('op-r');
    await w.server.run(['set-option', '-t', '=op-r:', '@spawn_nonce', nonce()]);
    await w.stamp('r', 'sid-me');
    const other = await owner('r', 'sid-me');
    expect(other).toMatchObject({ verdict: 5, owner: null });
    expect(other.reason).toMatch(/nonce/);

    // Same name, no nonce at all.
    await w.server.run(['kill-session', '-t', '=op-r:']);
    await w.server.newSession('op-r');
    await w.stamp('r', 'sid-me');
    expect(await owner('r', 'sid-me')).toMatchObject({ verdict: 5, owner: null });
    expect(await tmux.count()).toBe(0);
  });

  it("the control client's session closes: the next question is still answered, fresh", async () => {
    await w.pendingSession('c');
    await w.stamp('c', 'sid-me');
    expect(await owner('c', 'sid-me')).toMatchObject({ verdict: 0 });
    const attached = (await w.server.run(['list-clients', '-F', '#{session_name}'])).trim();
    await w.server.run(['kill-session', '-t', `=${attached}:`]);
    if (attached === 'op-c') await w.pendingSession('c');
    await w.stamp('c', 'sid-me');
    expect(await owner('c', 'sid-me')).toMatchObject({ verdict: 0 });
    expect(await tmux.count()).toBe(0);
  });

  it('the control client leaves after a while without questions, and comes back for the next one', async () => {
    await sup!.stop();
    sup = await startSupervisor(w.server, { ...w.fe, env: { ...w.fe.env, TMUX_FLEET_CONTROL_IDLE_MS: '400' } });
    await waitFor(() => existsSync(readMailboxDir(w.fe.home, sup!.socketPath)), 'read mailbox');
    await w.pendingSession('i');
    await w.stamp('i', 'sid-me');
    const controlClients = async () => (await w.server.run(['list-clients', '-F', '#{client_control_mode}'])).split('\n').filter((l) => l === '1').length;
    expect(await owner('i', 'sid-me')).toMatchObject({ verdict: 0 });
    await waitFor(async () => (await controlClients()) === 0, 'the control client gone after 400 ms idle');
    expect(await owner('i', 'sid-me')).toMatchObject({ verdict: 0 });
    expect(await controlClients()).toBe(1);
    expect(await tmux.count()).toBe(0);
  });

  it('sid-of-pane is answered the same way: the stamp, or exit 1, with no tmux process', async () => {
    await w.pendingSession('s');
    await w.stamp('s', 'sid-me');
    const r = await w.fleet(['sid-of-pane', 'op-s'], { env: { PATH: tmux.PATH } });
    expect([r.exitCode, r.stdout]).toEqual([0, 'sid-me']);
    const none = await w.fleet(['sid-of-pane', 'op'], { env: { PATH: tmux.PATH } });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/no stamp on tmux session "op"/);
    expect(await tmux.count()).toBe(0);
  });

  it("doctor says the supervisor makes owner's tmux reads", async () => {
    const r = await w.fleet(['doctor']);
    expect(r.stdout.split('\n')).toContainEqual(`✔ supervisor: running (pid ${sup!.pid}; makes owner's tmux reads)`);
  });

  it('a supervisor killed hard leaves its mailbox behind: owner sees it is gone, reads tmux itself (one call), same answer', async () => {
    await w.pendingSession('k');
    await w.stamp('k', 'sid-me');
    process.kill(sup!.pid, 'SIGKILL');
    await sup!.proc;
    sup = null;
    expect(existsSync(readMailboxDir(w.fe.home, (await w.server.run(['display-message', '-p', '#{socket_path}'])).trim()))).toBe(true);
    expect(await owner('k', 'sid-me')).toMatchObject({ verdict: 0, via: 'pane' });
    expect(await tmux.count()).toBe(1);
  });

  it('answered by the supervisor, owner loads neither child_process nor net: it starts no process and opens no socket', async () => {
    await w.pendingSession('m');
    await w.stamp('m', 'sid-me');
    const r = await loadedModules(w.fe, ['owner', 'm', '--as', 'sid-me']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^0 owner/);
    expect(r.modules.filter((m) => /^NativeModule (child_process|net|stream)$/.test(m))).toEqual([]);
    // The control case: told to read tmux itself, it does load child_process.
    const direct = await loadedModules(w.fe, ['owner', 'm', '--as', 'sid-me'], { TMUX_FLEET_DIRECT_READ: '1' });
    expect(direct.exitCode).toBe(0);
    expect(direct.modules).toContain('NativeModule child_process');
  });
});
