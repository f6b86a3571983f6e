// `owner`: the decision table (docs/ownership.md#decision-table) on a real private tmux server.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, makeWorld, nonce, type World } from '../helpers/stand-in-world';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.close();
});

interface Answer {
  verdict: number;
  slug: string;
  asker: string;
  owner: string | null;
  liveness: string | null;
  via: string | null;
  reason: string;
  lastHandover: unknown;
}

async function owner(slug: string, as?: string, env: Record<string, string | undefined> = {}): Promise<Answer & { exitCode: number }> {
  const r = await w.fleet(['owner', slug, '--json', ...(as === undefined ? [] : ['--as', as])], { env });
  const a = json<Answer>(r);
  expect(Object.keys(a).sort()).toEqual(['agent', 'asker', 'lastHandover', 'liveness', 'owner', 'ownerSession', 'reason', 'slug', 'verdict', 'via']);
  expect(r.exitCode).toBe(a.verdict);
  return { ...a, exitCode: r.exitCode };
}

describe('owner: the pending branch (one read of nonce and stamp)', () => {
  it('nonce matches, no stamp yet (boot window) -> 5', async () => {
    await w.pendingSession('p1');
    const a = await owner('p1', 'me');
    expect(a).toMatchObject({ verdict: 5, owner: null, liveness: null, via: null });
    expect(a.reason).toMatch(/no stamp yet/);
  });

  it('stamp is the asker -> 0 via pane', async () => {
    await w.pendingSession('p2');
    await w.stamp('p2', 'me');
    expect(await owner('p2', 'me')).toMatchObject({ verdict: 0, owner: 'me', via: 'pane' });
  });

  it('another stamp -> 9 naming it, with its liveness (live row, dead row, stamped without row, registry unreadable)', async () => {
    await w.pendingSession('p3');
    await w.stamp('p3', 'other');
    // No registry row: a tmux session carries the stamp, so it is live.
    expect(await owner('p3', 'me')).toMatchObject({ verdict: 9, owner: 'other', liveness: 'live', via: 'pane' });
    await w.deadRow('other');
    expect(await owner('p3', 'me')).toMatchObject({ verdict: 9, owner: 'other', liveness: 'gone' });
    await w.liveRow('other');
    expect(await owner('p3', 'me')).toMatchObject({ verdict: 9, owner: 'other', liveness: 'live' });
    const notADir = join(w.fe.root, 'not-a-dir');
    await writeFile(notADir, '');
    const u = await owner('p3', 'me', { TMUX_FLEET_REGISTRY: notADir });
    expect(u).toMatchObject({ verdict: 9, owner: 'other', liveness: 'unknown' });
    const human = await w.fleet(['owner', 'p3', '--as', 'me']);
    expect(human.stdout).toMatch(/^9 other other live \(task p3: .*tmux-fleet takeover p3/);
  });

  it('the session killed and recreated under the same name, stamped by the asker: no nonce or another nonce -> 5, never 0', async () => {
    await w.pendingSession('p4');
    await w.server.run(['kill-session', '-t', '=op-p4:']);
    expect((await owner('p4', 'me')).verdict).toBe(5); // gone
    await w.server.newSession('op-p4');
    await w.stamp('p4', 'me');
    const noNonce = await owner('p4', 'me');
    expect(noNonce.verdict).toBe(5);
    expect(noNonce.reason).toMatch(/no spawn nonce/);
    await w.server.run(['set-option', '-t', '=op-p4:', '@spawn_nonce', nonce()]);
    const other = await owner('p4', 'me');
    expect(other.verdict).toBe(5);
    expect(other.reason).toMatch(/another spawn nonce/);
  });

  it('a session named by prefix is never taken for driverPane (exact =name: target)', async () => {
    const n = nonce();
    await w.writeTask('p5', { driverSid: '', driverPane: 'op-p5', spawnNonce: n });
    await w.server.newSession('op-p5-longer');
    await w.server.run(['set-option', '-t', '=op-p5-longer:', '@spawn_nonce', n]);
    await w.server.run(['set-option', '-t', '=op-p5-longer:', '@claude_session_id', 'me']);
    expect((await owner('p5', 'me')).verdict).toBe(5);
  });

  it('a task written before nonces -> 5 (pane stamped by the asker, or no pane at all)', async () => {
    await w.server.newSession('op-old');
    await w.stamp('old', 'me');
    await w.writeTask('old', { driverSid: '', driverPane: 'op-old' });
    const a = await owner('old', 'me');
    expect(a.verdict).toBe(5);
    expect(a.reason).toMatch(/before spawn nonces/);
    await w.writeTask('older', { operatorSid: '' });
    expect((await owner('older', 'me')).verdict).toBe(5);
  });

  it('no tmux server -> 5', async () => {
    const n = await w.pendingSession('p6');
    await w.stamp('p6', 'me');
    expect((await owner('p6', 'me')).verdict).toBe(0);
    await w.server.kill();
    const a = await owner('p6', 'me');
    expect(a.verdict).toBe(5);
    expect(a.reason).toMatch(/cannot read tmux session op-p6/);
    expect(n).toHaveLength(32);
  });
});

describe('owner: the known-owner branch', () => {
  it('driverSid is the asker -> 0; another -> 9 with liveness; operatorSid-only records read the same', async () => {
    await w.writeTask('k1', { driverSid: 'me' });
    expect(await owner('k1', 'me')).toMatchObject({ verdict: 0, owner: 'me', via: 'sid' });
    await w.liveRow('boss');
    await w.writeTask('k2', { driverSid: 'boss' });
    expect(await owner('k2', 'me')).toMatchObject({ verdict: 9, owner: 'boss', liveness: 'live', via: 'sid' });
    await w.writeTask('k3', { driverSid: 'ghost' });
    expect(await owner('k3', 'me')).toMatchObject({ verdict: 9, owner: 'ghost', liveness: 'gone' });
    await w.writeTask('k4', { operatorSid: 'me' });
    expect((await owner('k4', 'me')).verdict).toBe(0);
  });

  it('the asker: --as, else $CLAUDE_CODE_SESSION_ID, else the stamp of $TMUX_PANE; nobody -> never 0', async () => {
    await w.writeTask('k5', { driverSid: 'me' });
    expect((await owner('k5', undefined, { CLAUDE_CODE_SESSION_ID: 'me' })).verdict).toBe(0);
    expect((await owner('k5', 'you', { CLAUDE_CODE_SESSION_ID: 'me' })).verdict).toBe(9);
    await w.server.newSession('mine');
    await w.server.run(['set-option', '-t', '=mine:', '@claude_session_id', 'me']);
    const pane = await w.display('mine', '#{pane_id}');
    expect(await owner('k5', undefined, { TMUX_PANE: pane })).toMatchObject({ verdict: 0, asker: 'me' });
    // A stale $TMUX_PANE expands to nothing on tmux 3.3a: nobody is named.
    expect(await owner('k5', undefined, { TMUX_PANE: '%9999' })).toMatchObject({ verdict: 9, asker: '' });
    expect(await owner('k5')).toMatchObject({ verdict: 9, asker: '' });
    // The asker read chained into the pending read.
    const n = await w.pendingSession('k6');
    await w.stamp('k6', 'me');
    expect(await owner('k6', undefined, { TMUX_PANE: pane })).toMatchObject({ verdict: 0, asker: 'me', via: 'pane' });
    expect(n).toHaveLength(32);
  });
});

describe('owner: bad tasks', () => {
  it('an unknown task is exit 1 (not 5, which means "still booting"), with a did-you-mean or the tasks there are', async () => {
    const none = await w.fleet(['owner', 'nope', '--as', 'me']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/^tmux-fleet: no task "nope" \(no tasks in .*tasks\)$/);
    await w.writeTask('fix-login', { driverSid: 'me' });
    await w.writeTask('add-search', { driverSid: 'me' });
    const typo = await w.fleet(['owner', 'fix-logn', '--as', 'me']);
    expect(typo.exitCode).toBe(1);
    expect(typo.stderr).toBe('tmux-fleet: no task "fix-logn" (did you mean fix-login?)');
    const other = await w.fleet(['owner', 'zzz', '--json', '--as', 'me']);
    expect(other.exitCode).toBe(1);
    expect(JSON.parse(other.stdout)).toEqual({ error: 'no task "zzz" (tasks: add-search, fix-login)', exit: 1 });
    // takeover says the same
    const t = await w.fleet(['takeover', 'fix-logn', '--as', 'me']);
    expect(t.exitCode).toBe(1);
    expect(t.stderr).toBe('tmux-fleet: no task "fix-logn" (did you mean fix-login?)');
  });

  it('a corrupt task.json -> 5 naming the file, and the file unchanged byte for byte', async () => {
    const dir = join(w.fe.home, 'tasks', 'torn');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'task.json');
    for (const text of ['{"slug":"torn","driverSid":"me"', '{"slug":"torn","spawnNonce":"XYZ","driverSid":""}\n', '[]']) {
      await writeFile(file, text);
      const a = await owner('torn', 'me');
      expect(a.verdict).toBe(5);
      expect(a.reason).toContain(file);
      expect(await readFile(file, 'utf8')).toBe(text);
    }
    await rm(dir, { recursive: true });
  });

  it('a bad --as is a usage error', async () => {
    await w.writeTask('k7', { driverSid: 'me' });
    const r = await w.fleet(['owner', 'k7', '--as', 'a b\n']);
    expect(r.exitCode).toBe(2);
  });
});
