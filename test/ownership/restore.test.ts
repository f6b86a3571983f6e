// restore on a real private tmux server with the stand-in agent (docs/ownership.md#restore):
// every gone Driver back in its conversation, the bad input refused task by task,
// a session tmux-resurrect left used, and two restores at once restoring each task once.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env';
import { countingTmux } from '../helpers/tmux-server';
import { json, makeWorld, type World } from '../helpers/stand-in-world';

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

describe('restore: bad input', () => {
  it('a last owner id that is no session id, a worktree that is now a file or a link, a name an unrelated session holds: each refused with why, nothing of it changed; the others restored', async () => {
    const wt = join(w.fe.root, 'worktrees');
    await mkdir(join(wt, 'elsewhere'), { recursive: true });
    await writeFile(join(wt, 'wt-file'), 'not a worktree');
    await symlink(join(wt, 'elsewhere'), join(wt, 'wt-link'));
    await goneTask('bad-sid', { driverSid: 'not a session id; $(touch x)' });
    await goneTask('wt-file', { worktree: join(wt, 'wt-file') });
    await goneTask('wt-link', { worktree: join(wt, 'wt-link') });
    await goneTask('taken');
    await goneTask('elsewhere');
    await goneTask('good');
    // Unrelated sessions under the names restore would make: a program, and a shell in another directory.
    await w.server.newSession('op-taken', ['sleep', '86400']);
    await w.server.run(['new-session', '-d', '-s', 'op-elsewhere', '-c', '/', 'sh']);
    const files = await Promise.all(['bad-sid', 'wt-file', 'wt-link', 'taken', 'elsewhere'].map((s) => readFile(w.taskPath(s), 'utf8')));

    const r = await w.fleet(['restore']);
    expect(r.exitCode).toBe(1);
    const line = (slug: string) => r.stdout.split('\n').find((l) => l.startsWith(`refused ${slug}: `)) ?? `(no refused line for ${slug} in:\n${r.stdout})`;
    expect(line('bad-sid')).toBe('refused bad-sid: its last owner id "not a session id; $(touch x)" is not a session id, so there is no conversation to resume');
    expect(line('wt-file')).toBe(`refused wt-file: its worktree ${join(wt, 'wt-file')} is now a file, not a directory`);
    expect(line('wt-link')).toBe(`refused wt-link: its worktree ${join(wt, 'wt-link')} is now a link (to ${join(wt, 'elsewhere')}), not the worktree spawn made`);
    expect(line('taken')).toBe('refused taken: tmux session op-taken is taken by another session (it runs sleep); rename or close it, then restore again');
    expect(line('elsewhere')).toBe("refused elsewhere: tmux session op-elsewhere is taken by another session (a shell in /, not in the task's directory); rename or close it, then restore again");
    expect(r.stdout).toContain('restored good: resumed conversation good-0000-4000-8000-000000000000 in a new tmux session op-good');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('restored 1 task; 5 tasks refused');
    // Nothing of the refused tasks changed: their files, and the sessions that hold the names.
    expect(await Promise.all(['bad-sid', 'wt-file', 'wt-link', 'taken', 'elsewhere'].map((s) => readFile(w.taskPath(s), 'utf8')))).toEqual(files);
    expect(await w.display('op-taken', '#{pane_current_command}|#{@spawn_nonce}')).toBe('sleep|');
    expect(await w.display('op-elsewhere', '#{pane_current_command}|#{@spawn_nonce}')).toBe('sh|');
    expect((await w.readTask('good')).spawnNonce).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('restore: many tasks', () => {
  it('one look at every task on reads they share: tmux read once for all of them, not once per task; the same answers', async () => {
    // Live Drivers (their ids stamped on sessions), pending tasks (a nonce, no session yet) and one gone Driver.
    const live = Array.from({ length: 12 }, (_, i) => `live${i}`);
    const pending = Array.from({ length: 12 }, (_, i) => `pend${i}`);
    for (const [i, slug] of live.entries()) {
      const sid = `${String(i).padStart(8, '0')}-0000-4000-8000-000000000001`;
      await w.writeTask(slug, { driverSid: sid, driverAgent: 'claude', driverPane: `op-${slug}`, cwd: w.fe.root });
      await w.server.newSession(`op-${slug}`, ['sleep', '86400']);
      await w.server.run(['set-option', '-t', `=op-${slug}:`, '@claude_session_id', sid]);
    }
    for (const slug of pending) await w.writeTask(slug, { driverSid: '', driverPane: `op-${slug}`, spawnNonce: 'a'.repeat(32), cwd: w.fe.root });
    await goneTask('gone1');
    const counting = await countingTmux(w.fe.root);
    const r = await w.fleet(['restore', '--dry-run', '--json'], { env: { PATH: counting.PATH } });
    // Refused: the pending tasks (never a Driver to resume): exit 1.
    expect(r.exitCode, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { restorable: number; tasks: { slug: string; action: string; reason: string }[] };
    expect(report.restorable).toBe(1);
    const bySlug = new Map(report.tasks.map((t) => [t.slug, t]));
    for (const slug of live) expect(bySlug.get(slug)?.reason, slug).toContain(`runs in tmux session op-${slug}`);
    for (const slug of pending) expect(bySlug.get(slug)?.reason, slug).toBe(`it is pending and never had a session id (its spawned session op-${slug} is gone): nothing to resume; spawn it again`);
    expect(bySlug.get('gone1')?.action).toBe('would-restore');
    // The spawn settings, every session's marks, and the one restorable task's session: not one read per task (25).
    expect(await counting.count()).toBeLessThanOrEqual(3);
    // Each answer is the one a judgement of that task alone gives (owner reads tmux itself).
    for (const slug of [live[0], pending[0], 'gone1'] as string[]) {
      const alone = await w.fleet(['restore', '--dry-run', '--json', slug]);
      expect(JSON.parse(alone.stdout).tasks[0]).toEqual(bySlug.get(slug));
    }
  });
});

describe('restore: tmux-resurrect', () => {
  it("a session tmux-resurrect restored (same name, a shell in the task's directory) is used: the agent starts in that pane", async () => {
    const rec = join(w.fe.root, 'rz.rec');
    await goneTask('rz', { agentCommand: w.standInCmd({ STAND_IN_RECORD: rec }) });
    // What resurrect leaves: the session by name, its pane a shell in the directory it had, and none of the session's options.
    await w.server.run(['new-session', '-d', '-s', 'op-rz', '-c', w.fe.root, 'sh']);
    const pane = await w.display('op-rz', '#{pane_id}');
    const r = await w.fleet(['restore', 'rz']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`restored rz: resumed conversation rz-0000-4000-8000-000000000000 in pane ${pane} of tmux session op-rz`);
    expect((await record(rec)).argv).toEqual(['--resume', 'rz-0000-4000-8000-000000000000']);
    // The same session and pane, no second one; the task follows the resumed agent.
    expect((await sessions()).filter((s) => s.startsWith('op-rz'))).toEqual(['op-rz']);
    expect(await w.display('op-rz', '#{pane_id} #{@fleet-task}')).toBe(`${pane} rz`);
    await waitFor(async () => (await w.readTask('rz')).driverSid === 'rz-0000-4000-8000-000000000000', 'rz filled by the resumed agent');
    expect((await w.readTask('rz')).handovers?.at(-1)).toMatchObject({ reason: 'resume', to: 'rz-0000-4000-8000-000000000000', pane: 'op-rz' });
  });
});

describe('restore: at once', () => {
  it('two restores at once restore each task once (the task lock); the other leaves it, saying why', async () => {
    const slugs = ['c1', 'c2', 'c3'];
    for (const s of slugs) await goneTask(s, { agentCommand: w.standInCmd({ STAND_IN_SID: `${s}-0000-4000-8000-000000000000` }) });
    const [one, two] = await Promise.all([w.fleet(['restore', '--json']), w.fleet(['restore', '--json'])]);
    expect(one.exitCode, one.stdout + one.stderr).toBe(0);
    expect(two.exitCode, two.stdout + two.stderr).toBe(0);
    const actions = (r: typeof one) => Object.fromEntries((json<{ tasks: { slug: string; action: string }[] }>(r).tasks).map((t) => [t.slug, t.action]));
    const a = actions(one);
    const b = actions(two);
    for (const s of slugs) expect([a[s], b[s]].sort(), `${s}: ${one.stdout} ${two.stdout}`).toEqual(['restored', 'skipped']);
    for (const s of slugs) {
      const t = await w.readTask(s);
      expect(t.handovers?.filter((h) => h.reason === 'resume')).toHaveLength(1);
    }
    expect((await sessions()).filter((s) => s.startsWith('op-c')).sort()).toEqual(['op-c1', 'op-c2', 'op-c3']);
  });
});

describe('restore: parked work', () => {
  it("a tab whose work was parked on a background job: the job's conversation is resumed in the Driver's session, and named", async () => {
    const rec = join(w.fe.root, 'rp.rec');
    const tab = 'b0b0b0b0-1111-4222-8333-444444444444';
    const job = 'e9e4ae8e-5555-4666-8777-888888888888';
    await goneTask('rp', { driverSid: tab, driverJobId: 'e9e4ae8e', agentCommand: w.standInCmd({ STAND_IN_RECORD: rec }) });
    // Claude Code's transcripts: the tab's ends with continued-in (the park), the job's holds its turn.
    const projects = join(w.fe.claudeDir, 'projects', '-work');
    await mkdir(projects, { recursive: true });
    const line = (o: object) => `${JSON.stringify(o)}\n`;
    await writeFile(
      join(projects, `${tab}.jsonl`),
      line({ type: 'user', sessionId: tab, message: { role: 'user', content: 'park me' } }) + line({ type: 'continued-in', sessionId: tab, continuedInSessionId: job }),
    );
    await writeFile(join(projects, `${job}.jsonl`), line({ type: 'user', sessionId: job, message: { role: 'user', content: 'park me' } }) + line({ type: 'assistant', sessionId: job }));
    const r = await w.fleet(['restore', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const item = json<{ tasks: Record<string, unknown>[] }>(r).tasks[0];
    expect(item).toMatchObject({ slug: 'rp', action: 'restored', conversation: { sid: job, whose: 'job', jobId: 'e9e4ae8e', tab } });
    expect(item?.reason).toBe(`resumed background job e9e4ae8e's conversation ${job} (the tab ${tab} had parked its work on it) in a new tmux session op-rp`);
    expect((await record(rec)).argv).toEqual(['--resume', job]);
    const t = await w.readTask('rp');
    expect(t.driverJobId).toBeUndefined();
    expect(t.handovers?.at(-1)).toMatchObject({ from: tab, reason: 'resume', resumed: job, job: 'e9e4ae8e' });
    expect(t.priorDriverSid).toBe(tab);
    await waitFor(async () => (await w.readTask('rp')).driverSid === job, 'rp filled by the resumed job conversation');
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
