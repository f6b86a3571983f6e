// spawn on a real private tmux server with the stand-in agent.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env';
import { ROOT } from '../helpers/paths';
import { json, makeWorld, sq, type World } from '../helpers/stand-in-world';
import { acceptanceGate } from '../../src/pointer';

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(async () => {
  await w.close();
});

async function record(file: string): Promise<{ argv: string[]; task: string | null; cwd: string; pid: number }> {
  return JSON.parse(await waitFor(() => readFile(file, 'utf8').catch(() => ''), `record ${file}`));
}

describe('spawn', () => {
  // Fifty whole spawns, each a helper process and a tmux session: up to a minute on a busy two-core machine.
  it('50 spawns of 50: the agent sees the recorded nonce the instant it starts', { timeout: 180_000 }, async () => {
    const out = join(w.fe.root, 'nonces');
    const script = join(w.fe.root, 'read-nonce.sh');
    await writeFile(script, `mkdir -p "$1"; tmux display-message -p -t "$TMUX_PANE" '#{@spawn_nonce}' > "$1/$TMUX_FLEET_TASK"; exec sleep 600\n`);
    const cmd = `/bin/sh ${sq(script)} ${sq(out)}`;
    // Five at a time: each spawn is its own task and session, and spawns running side by side
    // are as real as one after another (agents spawning children do that).
    for (let i = 0; i < 50; i += 5) {
      const batch = await Promise.all([0, 1, 2, 3, 4].map((k) => w.fleet(['spawn', `n${i + k}`, '--cmd', cmd])));
      for (const r of batch) expect(r.exitCode, r.stderr).toBe(0);
    }
    await waitFor(async () => (await readdir(out).catch(() => [])).length === 50, '50 nonce reads');
    let seen = 0;
    for (let i = 0; i < 50; i++) {
      const read = (await readFile(join(out, `n${i}`), 'utf8')).trim();
      const task = await w.readTask(`n${i}`);
      expect(task.spawnNonce).toMatch(/^[0-9a-f]{32}$/);
      if (read === task.spawnNonce) seen++;
    }
    expect(seen).toBe(50);
  });

  it('writes one pending record: empty driverSid, driverPane, nonce, launcher, acceptance; env carries the task', async () => {
    const rec = join(w.fe.root, 'rec.json');
    const r = await w.fleet(
      ['spawn', 'alpha', '--json', '--cmd', w.standInCmd({ STAND_IN_RECORD: rec, STAND_IN_NO_STAMP: '1' }), '--label', 'Alpha', '--accept', 'tests pass', '--accept', 'docs'],
      { env: { CLAUDE_CODE_SESSION_ID: 'launcher-1' } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const out = json<{ session: string; spawnNonce: string }>(r);
    expect(out.session).toBe('op-alpha');
    const t = await w.readTask('alpha');
    expect(t).toMatchObject({ slug: 'alpha', driverSid: '', driverPane: 'op-alpha', spawnNonce: out.spawnNonce, launcherSid: 'launcher-1', label: 'Alpha' });
    expect(t.acceptance?.map((a) => [a.text, a.addedBy])).toEqual([
      ['tests pass', 'launcher-1'],
      ['docs', 'launcher-1'],
    ]);
    // The agent's launch prompt carries them as its acceptance gate.
    expect(await readFile(join(w.fe.home, 'tasks', 'alpha', 'launch-prompt.md'), 'utf8')).toBe(acceptanceGate(['tests pass', 'docs']));
    expect((await record(rec)).argv).toEqual([acceptanceGate(['tests pass', 'docs'])]);
    expect(await w.display('op-alpha', '#{@spawn_nonce}|#{@fleet-task}')).toBe(`${out.spawnNonce}|alpha`);
    const got = await record(rec);
    expect(got.task).toBe('alpha');
    expect((await stat(w.taskPath('alpha'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(w.fe.home, 'tasks', 'alpha'))).mode & 0o777).toBe(0o700);
  });

  it('the launcher is never the owner', async () => {
    const r = await w.fleet(['spawn', 'beta', '--cmd', w.standInCmd({ STAND_IN_SID: 'driver-beta' }), '--accept', 'x'], {
      env: { CLAUDE_CODE_SESSION_ID: 'launcher-2' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await w.waitOwner('beta')).toBe('driver-beta');
    const t = await w.readTask('beta');
    expect(t.launcherSid).toBe('launcher-2');
    expect(t.acceptance?.[0]?.addedBy).toBe('launcher-2');
    expect(t.spawnNonce).toBeUndefined();
    const asLauncher = await w.fleet(['owner', 'beta', '--as', 'launcher-2']);
    expect(asLauncher.exitCode).toBe(9);
    expect((await w.fleet(['owner', 'beta'], { env: { CLAUDE_CODE_SESSION_ID: 'launcher-2' } })).exitCode).toBe(9);
    expect((await w.fleet(['owner', 'beta', '--as', 'driver-beta'])).exitCode).toBe(0);
  });

  it('the launcher is not the owner in the boot window either', async () => {
    const r = await w.fleet(['spawn', 'gamma', '--cmd', w.standInCmd({ STAND_IN_NO_STAMP: '1' })], { env: { CLAUDE_CODE_SESSION_ID: 'launcher-3' } });
    expect(r.exitCode, r.stderr).toBe(0);
    const o = await w.fleet(['owner', 'gamma', '--json'], { env: { CLAUDE_CODE_SESSION_ID: 'launcher-3' } });
    expect(o.exitCode).toBe(5);
    expect(json(o)).toMatchObject({ verdict: 5, asker: 'launcher-3', owner: null });
  });

  it.each([['../x'], ['.'], ['a.b'], ['a:b'], ['Abc'], [''], ['a/b'], ['x'.repeat(64)]])('refuses the slug %j with exit 2 naming the rule, and makes nothing', async (slug) => {
    for (const args of [['spawn', slug, '--cmd', 'true'], ['owner', slug, '--as', 'me'], ['takeover', slug, '--as', 'me', '--force']]) {
      const r = await w.fleet(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('a-z, 0-9');
    }
    expect(existsSync(join(w.fe.home, 'tasks'))).toBe(false);
    expect((await w.server.run(['list-sessions', '-F', '#{session_name}'])).trim()).toBe('keeper');
  });

  it('hostile label and prompt: nothing executed, the prompt delivered byte for byte', async () => {
    const marker = join(w.fe.root, 'PWNED');
    const evil = `$(touch ${marker}) \`touch ${marker}\` ; touch ${marker}; #(touch ${marker}) #{session_name} "dq" 'sq' \\ \n--second line\n\n;`;
    const rec = join(w.fe.root, 'rec.json');
    const r = await w.fleet(['spawn', 'evil', '--cmd', w.standInCmd({ STAND_IN_RECORD: rec }), `--label=${evil}`, `--prompt=${evil}`, `--accept=${evil}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    const got = await record(rec);
    // The prompt byte for byte, then the acceptance gate (the item on one line).
    const prompt = `${evil.replace(/\s+$/, '')}\n\n${acceptanceGate([evil])}`;
    expect(got.argv).toEqual([prompt]);
    expect(await readFile(join(w.fe.home, 'tasks', 'evil', 'launch-prompt.md'), 'utf8')).toBe(prompt);
    expect((await stat(join(w.fe.home, 'tasks', 'evil', 'launch-prompt.md'))).mode & 0o777).toBe(0o600);
    await w.waitOwner('evil');
    const t = await w.readTask('evil');
    expect(t.label).toBe(evil);
    expect(t.acceptance?.[0]?.text).toBe(evil);
    // A hostile --cwd is a directory name tmux would expand as a format (tmux 3.3a expands `#[`
    // in a start directory even doubled): it is refused before anything runs, and nothing runs.
    // (A directory name holds no `/`, so its marker is relative: it would land in the server's or the pane's cwd.)
    const dir = join(w.fe.root, 'd#(touch PWNED-REL)$(touch PWNED-REL)#{session_name}');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir));
    const rec2 = join(w.fe.root, 'rec2.json');
    const r2 = await w.fleet(['spawn', 'evil2', '--cwd', dir, '--cmd', w.standInCmd({ STAND_IN_RECORD: rec2 })]);
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toContain('holds a #');
    expect(existsSync(rec2)).toBe(false);
    expect(existsSync(marker)).toBe(false);
    for (const d of [ROOT, w.fe.root, dir, process.cwd()]) expect(existsSync(join(d, 'PWNED-REL'))).toBe(false);
  });

  it('a prompt over tmux 16 KiB command limit still arrives whole (--prompt-file)', async () => {
    const big = `${'long prompt line with "quotes" and $(x)\n'.repeat(1000)}end\n\n`;
    const file = join(w.fe.root, 'prompt.md');
    await writeFile(file, big);
    const rec = join(w.fe.root, 'rec.json');
    const r = await w.fleet(['spawn', 'big', '--prompt-file', file, '--cmd', w.standInCmd({ STAND_IN_RECORD: rec })]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await record(rec)).argv).toEqual([big]);
  });

  it('an existing session is a clear error; --replace kills it and respawns, keeping createdAt and unknown keys', async () => {
    const cmd = w.standInCmd({ STAND_IN_NO_STAMP: '1' });
    expect((await w.fleet(['spawn', 'rep', '--cmd', cmd])).exitCode).toBe(0);
    const first = await w.readTask('rep');
    await writeFile(w.taskPath('rep'), JSON.stringify({ ...first, futureKey: { keep: [1, 2] } }));
    const before = await readFile(w.taskPath('rep'), 'utf8');
    const again = await w.fleet(['spawn', 'rep', '--cmd', cmd]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/op-rep already exists.*--replace/);
    expect(await readFile(w.taskPath('rep'), 'utf8')).toBe(before);
    const oldId = await w.display('op-rep', '#{session_id}');
    const rep = await w.fleet(['spawn', 'rep', '--replace', '--cmd', cmd]);
    expect(rep.exitCode, rep.stderr).toBe(0);
    const t = await w.readTask('rep');
    expect(t.spawnNonce).not.toBe(first.spawnNonce);
    expect(t.createdAt).toBe(first.createdAt);
    expect(t.futureKey).toEqual({ keep: [1, 2] });
    expect(await w.display('op-rep', '#{session_id}')).not.toBe(oldId);
    expect(await w.display('op-rep', '#{@spawn_nonce}')).toBe(t.spawnNonce);
  });

  it('--resume respawns with <agent cmd> --resume <previous driverSid>', async () => {
    const rec = join(w.fe.root, 'rec.json');
    expect((await w.fleet(['spawn', 'res', '--cmd', w.standInCmd({ STAND_IN_SID: 'first-sid' })])).exitCode).toBe(0);
    expect(await w.waitOwner('res')).toBe('first-sid');
    const r = await w.fleet(['spawn', 'res', '--replace', '--resume', '--cmd', w.standInCmd({ STAND_IN_RECORD: rec, STAND_IN_NO_STAMP: '1' })]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await record(rec)).argv).toEqual(['--resume', 'first-sid']);
    expect((await w.readTask('res')).driverSid).toBe('');
  });

  it('--resume of a session whose transcript holds no message yet is refused with one line, nothing changed; once it holds one, it resumes', async () => {
    expect((await w.fleet(['spawn', 'nores', '--cmd', w.standInCmd({ STAND_IN_SID: 'early-sid' })])).exitCode).toBe(0);
    expect(await w.waitOwner('nores')).toBe('early-sid');
    // What Claude Code 2.1.333 leaves when its process is killed before the first prompt is saved.
    const dir = join(w.fe.claudeDir, 'projects', '-work');
    await mkdir(dir, { recursive: true });
    const transcript = join(dir, 'early-sid.jsonl');
    const settingsOnly = ['mode', 'permission-mode'].map((type) => JSON.stringify({ type, sessionId: 'early-sid' })).join('\n') + '\n';
    await writeFile(transcript, settingsOnly);
    const task = await readFile(w.taskPath('nores'), 'utf8');
    const sessionId = await w.display('op-nores', '#{session_id}');
    const rec = join(w.fe.root, 'rec-nores.json');
    const cmd = w.standInCmd({ STAND_IN_RECORD: rec, STAND_IN_NO_STAMP: '1' });
    const refused = await w.fleet(['spawn', 'nores', '--replace', '--resume', '--cmd', cmd]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`session early-sid has no conversation to resume (its transcript ${transcript} holds no message yet)`);
    expect(await readFile(w.taskPath('nores'), 'utf8')).toBe(task);
    expect(await w.display('op-nores', '#{session_id}')).toBe(sessionId);
    expect(existsSync(rec)).toBe(false);

    await writeFile(transcript, `${settingsOnly}${JSON.stringify({ type: 'user', message: { role: 'user', content: 'write a sonnet' }, sessionId: 'early-sid' })}\n`);
    const resumed = await w.fleet(['spawn', 'nores', '--replace', '--resume', '--cmd', cmd]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect((await record(rec)).argv).toEqual(['--resume', 'early-sid']);
  });

  it('uses @fleet-session-prefix and @fleet-agent-cmd', async () => {
    const rec = join(w.fe.root, 'rec.json');
    await w.server.run(['set-option', '-g', '@fleet-session-prefix', 'ag-']);
    await w.server.run(['set-option', '-g', '@fleet-agent-cmd', w.standInCmd({ STAND_IN_RECORD: rec, STAND_IN_NO_STAMP: '1' })]);
    const r = await w.fleet(['spawn', 'opt', '--prompt', 'p']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await w.readTask('opt')).driverPane).toBe('ag-opt');
    expect((await record(rec)).argv).toEqual(['p']);
    await w.server.run(['set-option', '-g', '@fleet-session-prefix', 'x.y']);
    const bad = await w.fleet(['spawn', 'opt2', '--cmd', 'true']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('@fleet-session-prefix');
  });

  it('a corrupt task.json stops the spawn before anything runs, file unchanged', async () => {
    await import('node:fs/promises').then((fs) => fs.mkdir(join(w.fe.home, 'tasks', 'bad'), { recursive: true }));
    const text = '{"slug": "bad", "driverSid": tru';
    await writeFile(w.taskPath('bad'), text);
    const r = await w.fleet(['spawn', 'bad', '--cmd', 'true']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(w.taskPath('bad'));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await readFile(w.taskPath('bad'), 'utf8')).toBe(text);
    expect(await w.server.tmux.hasSession('op-bad')).toBe(false);
  });

  it('no tmux server: one clear line, nothing written', async () => {
    await w.server.kill();
    const r = await w.fleet(['spawn', 'nos', '--cmd', 'true']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^tmux-fleet: spawn: no usable tmux server/);
    expect(existsSync(join(w.fe.home, 'tasks', 'nos'))).toBe(false);
  });

  it('--worktree: the Driver starts in a new worktree on fleet/<slug>; outside a repo nothing is left behind', async () => {
    const { execa } = await import('execa');
    const repo = join(w.fe.root, 'repo');
    await import('node:fs/promises').then((fs) => fs.mkdir(repo));
    const git = (...a: string[]) => execa('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
    await git('init', '-q', '-b', 'main');
    await git('commit', '-q', '--allow-empty', '-m', 'init');
    const rec = join(w.fe.root, 'rec.json');
    const r = await w.fleet(['spawn', 'wt', '--worktree', '--cmd', w.standInCmd({ STAND_IN_RECORD: rec, STAND_IN_NO_STAMP: '1' })], { cwd: repo });
    expect(r.exitCode, r.stderr).toBe(0);
    const t = await w.readTask('wt');
    expect(t).toMatchObject({ branch: 'fleet/wt', base: 'main', worktree: join(w.fe.home, 'worktrees', 'wt') });
    expect((await record(rec)).cwd).toBe(t.worktree);
    const outside = await w.fleet(['spawn', 'wt2', '--worktree', '--cmd', 'true'], { cwd: w.fe.root });
    expect(outside.exitCode).toBe(2);
    expect(existsSync(join(w.fe.home, 'tasks', 'wt2'))).toBe(false);
    expect(await w.server.tmux.hasSession('op-wt2')).toBe(false);
  });

  // Eight spawns: seconds each on a loaded machine.
  it('measures the boot sub-window: spawn returning -> stamp landing', { timeout: 180_000 }, async () => {
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await w.fleet(['spawn', `boot${i}`, '--cmd', w.standInCmd()]);
      expect(r.exitCode).toBe(0);
      const t0 = Date.now();
      await waitFor(async () => (await w.display(`op-boot${i}`, '#{@claude_session_id}')) !== '', 'stamp', 10_000, 20);
      times.push(Date.now() - t0);
      // The stamped agent owns the task from then on: the stamp fills the record, or, when it
      // came before spawn's own write (a fast agent on a busy machine), the judge's pending read
      // names it until a sweep fills it (docs/ownership.md#sweep).
      const sid = await w.display(`op-boot${i}`, '#{@claude_session_id}');
      const judged = await w.fleet(['owner', `boot${i}`, '--as', sid]);
      expect(judged.exitCode, judged.stdout + judged.stderr).toBe(0);
    }
    times.sort((a, b) => a - b);
    // Not a budget, a measurement for the closing note.
    console.log(`boot sub-window after spawn returns (ms): ${times.join(', ')}; median ${times[Math.floor(times.length / 2)]}`);
    expect(times.length).toBe(8);
  });
});
