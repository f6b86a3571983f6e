// stamp (the SessionStart hook) and /clear survival, with the stand-in agent.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env';
import { makeWorld, type World } from '../helpers/stand-in-world';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.close();
});

const owner = async (slug: string, as: string) => (await w.fleet(['owner', slug, '--as', as])).exitCode;

async function paneOf(session: string): Promise<string> {
  return w.display(session, '#{pane_id}');
}

async function standInPid(rec: string): Promise<number> {
  return JSON.parse(await waitFor(() => readFile(rec, 'utf8').catch(() => ''), 'stand-in record')).pid;
}

/** Spawns a stand-in Driver for slug and waits until its stamp filled the task. */
async function driver(slug: string, extra: Record<string, string> = {}): Promise<{ sid: string; pid: number; rec: string }> {
  const rec = join(w.fe.root, `${slug}.rec.json`);
  const r = await w.fleet(['spawn', slug, '--cmd', w.standInCmd({ STAND_IN_RECORD: rec, ...extra })]);
  expect(r.exitCode, r.stderr).toBe(0);
  const sid = await w.waitOwner(slug);
  return { sid, pid: await standInPid(rec), rec };
}

async function typeIn(session: string, line: string): Promise<void> {
  await w.server.run(['send-keys', '-t', `=${session}:`, '-l', line]);
  await w.server.run(['send-keys', '-t', `=${session}:`, 'Enter']);
}

describe('stamp', () => {
  it('stamps the session, fills the pending task at once (pid and procStart), drops the nonce, keeps unknown keys', async () => {
    await w.writeTask('s1', { futureKey: { nested: ['kept'] }, label: 'one' });
    const { sid, pid } = await driver('s1');
    const t = await w.readTask('s1');
    expect(t.driverSid).toBe(sid);
    expect(t.spawnNonce).toBeUndefined();
    expect(t.futureKey).toEqual({ nested: ['kept'] });
    expect(t.driverPid).toBe(pid);
    // As the agent writes it on Linux: /proc/<pid>/stat field 22, a decimal string of ticks.
    expect(t.driverProcStart).toMatch(/^\d+$/);
    expect(await w.display('op-s1', '#{@claude_session_id}')).toBe(sid);
    expect(await owner('s1', sid)).toBe(0);
  });

  it('prints nothing and exits 0, in tmux and outside it; problems go to <home>/log (0600) with a timestamp', async () => {
    await w.server.newSession('plain');
    const pane = await paneOf('plain');
    const ok = await w.fleet(['stamp'], { env: { TMUX_PANE: pane }, input: JSON.stringify({ session_id: 'abc-1', source: 'startup', cwd: '/' }) });
    expect(ok).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await w.display('plain', '#{@claude_session_id}')).toBe('abc-1');
    expect((await w.fleet(['stamp', '--sid', 'abc-2'], { env: { TMUX_PANE: pane } })).stdout).toBe('');
    expect(await w.display('plain', '#{@claude_session_id}')).toBe('abc-2');

    const outside = await w.fleet(['stamp'], { input: JSON.stringify({ session_id: 'abc-3', source: 'startup' }) });
    expect(outside).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    const bad = [
      '{not json',
      JSON.stringify({ session_id: 'x\ny', source: 'startup' }),
      JSON.stringify({ session_id: '#(touch x)', source: 'startup' }),
      JSON.stringify({ session_id: 'z'.repeat(500) }),
      '',
    ];
    for (const input of bad) {
      const r = await w.fleet(['stamp'], { env: { TMUX_PANE: pane }, input });
      expect(r).toMatchObject({ exitCode: 0, stdout: '' });
    }
    expect(await w.display('plain', '#{@claude_session_id}')).toBe('abc-2');
    const log = join(w.fe.home, 'log');
    expect((await stat(log)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1 + bad.length);
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z stamp\[\d+\]: /);
    expect(lines[0]).toContain('outside tmux');
  });

  it('does not fill a task whose pane carries another nonce', async () => {
    await w.writeTask('s2', { driverSid: '', driverPane: 'op-s2', spawnNonce: 'c'.repeat(32) });
    await w.server.newSession('op-s2');
    await w.server.run(['set-option', '-t', '=op-s2:', '@spawn_nonce', 'd'.repeat(32)]);
    await w.server.run(['set-option', '-t', '=op-s2:', '@fleet-task', 's2']);
    const r = await w.fleet(['stamp', '--sid', 'intruder'], { env: { TMUX_PANE: await paneOf('op-s2') } });
    expect(r.exitCode).toBe(0);
    const t = await w.readTask('s2');
    expect(t.driverSid).toBe('');
    expect(t.spawnNonce).toBe('c'.repeat(32));
    expect(await owner('s2', 'intruder')).toBe(5);
  });
});

describe('/clear survival', () => {
  it('the Driver still gets 0 after its /clear; the old id gets 9; one handover with reason clear', async () => {
    const { sid, pid } = await driver('c1');
    await typeIn('op-c1', '/clear');
    const now = await waitFor(async () => {
      const t = await w.readTask('c1');
      return t.driverSid !== sid ? t.driverSid : '';
    }, 'handover');
    expect(await owner('c1', now as string)).toBe(0);
    expect(await owner('c1', sid)).toBe(9);
    const t = await w.readTask('c1');
    expect(t).toMatchObject({ priorDriverSid: sid, driverEpoch: 1, driverPid: pid });
    expect(t.handovers).toHaveLength(1);
    expect(t.handovers?.[0]).toMatchObject({ from: sid, to: now, reason: 'clear', pane: 'op-c1' });
    const j = JSON.parse((await w.fleet(['owner', 'c1', '--as', now as string, '--json'])).stdout);
    expect(j.lastHandover).toMatchObject({ from: sid, to: now, reason: 'clear' });
    const doc = await w.fleet(['doctor', '--session', 'op-c1']);
    expect(doc.stdout).toContain(`✔ last handover of c1: ${sid} → ${now} (clear, ${t.handovers?.[0]?.at})`);
  });

  it('two clears in a row give epoch 2 and two handovers', async () => {
    const { sid } = await driver('c2');
    await typeIn('op-c2', '/clear');
    const second = await waitFor(async () => ((await w.readTask('c2')).driverEpoch === 1 ? (await w.readTask('c2')).driverSid : ''), 'first clear');
    await typeIn('op-c2', '/clear');
    await waitFor(async () => (await w.readTask('c2')).driverEpoch === 2, 'second clear');
    const t = await w.readTask('c2');
    expect(t.handovers?.map((h) => [h.from, h.to, h.reason])).toEqual([
      [sid, second, 'clear'],
      [second, t.driverSid, 'clear'],
    ]);
    expect(t.priorDriverSid).toBe(second);
    expect(await owner('c2', t.driverSid as string)).toBe(0);
    expect(await owner('c2', second as string)).toBe(9);
  });

  it('a different process stamping the same session with a new id does not take the task', async () => {
    const { sid } = await driver('c3');
    await w.liveRow('newcomer'); // a live process of its own, another pid
    const r = await w.fleet(['stamp'], { env: { TMUX_PANE: await paneOf('op-c3') }, input: JSON.stringify({ session_id: 'newcomer', source: 'clear' }) });
    expect(r).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await w.display('op-c3', '#{@claude_session_id}')).toBe('newcomer');
    const t = await w.readTask('c3');
    expect(t.driverSid).toBe(sid);
    expect(t.handovers).toBeUndefined();
    expect(await owner('c3', 'newcomer')).toBe(9);
    expect(await owner('c3', sid)).toBe(0);
    const o = await w.fleet(['owner', 'c3', '--as', 'newcomer']);
    expect(o.stdout).toContain('tmux-fleet takeover c3');
    expect(await readFile(join(w.fe.home, 'log'), 'utf8')).toMatch(/not handed over/);
  });

  it('a reused pid with another procStart does not take the task', async () => {
    const { sid, pid } = await driver('c4');
    // A row for the new id naming the Driver's pid, but another process start.
    await writeFile(join(w.fe.registry, '99999999.json'), JSON.stringify({ pid, sessionId: 'reuser', procStart: 'Thu Jan 1 00:00:00 1970' }));
    const r = await w.fleet(['stamp'], { env: { TMUX_PANE: await paneOf('op-c4') }, input: JSON.stringify({ session_id: 'reuser', source: 'clear' }) });
    expect(r.exitCode).toBe(0);
    expect((await w.readTask('c4')).driverSid).toBe(sid);
    expect(await owner('c4', 'reuser')).toBe(9);
  });

  it('no registry row for the new id: not handed over', async () => {
    const { sid } = await driver('c5');
    const r = await w.fleet(['stamp', '--sid', 'rowless'], { env: { TMUX_PANE: await paneOf('op-c5') } });
    expect(r.exitCode).toBe(0);
    expect((await w.readTask('c5')).driverSid).toBe(sid);
  });
});
