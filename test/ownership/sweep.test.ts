// sweep: every pending task resolved with one tmux call, whatever the number of tasks.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingTmux } from '../helpers/tmux-server';
import { json, makeWorld, type World } from '../helpers/stand-in-world';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.close();
});

/** A session carrying a nonce and (optionally) a stamp, and the pending task naming it. */
async function pending(slug: string, stamp?: string, extra: Record<string, unknown> = {}): Promise<string> {
  const n = randomBytes(16).toString('hex');
  await w.server.newSession(`op-${slug}`);
  await w.server.run(['set-option', '-t', `=op-${slug}:`, '@spawn_nonce', n]);
  if (stamp) await w.server.run(['set-option', '-t', `=op-${slug}:`, '@claude_session_id', stamp]);
  await w.writeTask(slug, { driverSid: '', driverPane: `op-${slug}`, spawnNonce: n, ...extra });
  return n;
}

describe('sweep', () => {
  it('fills every stamped pending task whose session carries the recorded nonce; drops nonces; keeps unknown keys', async () => {
    await pending('a', 'sid-a', { futureKey: 1 });
    await pending('b', 'sid-b');
    await pending('c'); // booting: no stamp yet
    const n = await pending('d', 'sid-d');
    await w.server.run(['set-option', '-t', '=op-d:', '@spawn_nonce', randomBytes(16).toString('hex')]); // recreated
    await w.writeTask('e', { driverSid: 'already' });
    const before = await readFile(w.taskPath('e'), 'utf8');

    const r = await w.fleet(['sweep']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('filled a: sid-a (tmux session op-a)');
    expect(r.stdout).toContain('filled b: sid-b');
    const a = await w.readTask('a');
    expect(a).toMatchObject({ driverSid: 'sid-a', futureKey: 1 });
    expect(a.spawnNonce).toBeUndefined();
    expect((await w.readTask('c')).driverSid).toBe('');
    expect(await w.readTask('d')).toMatchObject({ driverSid: '', spawnNonce: n });
    expect(await readFile(w.taskPath('e'), 'utf8')).toBe(before);
    expect((await w.fleet(['owner', 'a', '--as', 'sid-a'])).exitCode).toBe(0);

    const again = json<{ filled: unknown[]; pending: string[] }>(await w.fleet(['sweep', '--json']));
    expect(again.filled).toEqual([]);
    expect(again.pending.sort()).toEqual(['c', 'd']);
  });

  it('fills driverPid/driverProcStart from the live registry row', async () => {
    await pending('f', 'sid-f');
    const pid = await w.liveRow('sid-f');
    const r = json<{ filled: { slug: string; sid: string }[] }>(await w.fleet(['sweep', '--json']));
    expect(r.filled).toEqual([{ slug: 'f', session: 'op-f', sid: 'sid-f' }]);
    expect((await w.readTask('f')).driverPid).toBe(pid);
  });

  it('makes the same number of tmux calls for 1 and for 12 pending tasks', async () => {
    const tmux = await countingTmux(w.fe.root);
    await pending('one', 'sid-one');
    expect((await w.fleet(['sweep'], { env: { PATH: tmux.PATH } })).exitCode).toBe(0);
    const forOne = await tmux.count();
    for (let i = 0; i < 12; i++) await pending(`many${i}`, `sid-many${i}`);
    const base = await tmux.count();
    const r = await w.fleet(['sweep', '--json'], { env: { PATH: tmux.PATH } });
    expect(json<{ filled: unknown[] }>(r).filled).toHaveLength(12);
    expect((await tmux.count()) - base).toBe(forOne);
    expect(forOne).toBe(1);
  });

  it('no tmux server: one clear line, nothing changed', async () => {
    await pending('g', 'sid-g');
    const before = await readFile(w.taskPath('g'), 'utf8');
    await w.server.kill();
    const r = await w.fleet(['sweep']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/sweep: cannot read the sessions/);
    expect(await readFile(w.taskPath('g'), 'utf8')).toBe(before);
  });
});
