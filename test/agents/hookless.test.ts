// The supervisor proves agents that write no registry row, without their hook,
// on a real tmux server with stand-ins that show what the real ones show
// (the real ones: test/agents-real/): a "codex" (a copy of sleep under that
// name) that holds an flock on <home>/.codex/thread-writer-locks/<id>.lock,
// and a "gemini" (node running a script of that name with
// GEMINI_CLI_NO_RELAUNCH=true and --session-id) whose chat file exists.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { STAMP_SETTLE_MS } from '../../src/ownership/pane-agents';
import { RETRY_MS } from '../../src/ownership/pane-stamper';
import { sleep, waitFor } from '../helpers/env';
import { makeWorld, sq, type World } from '../helpers/stand-in-world';

let w: World;
let supervisor: RunningSupervisor;
let home: string;
const opt = async (session: string, name: string) => (await w.server.run(['show-options', '-qv', '-t', `=${session}:`, name])).trim();
/**
 * Makes the supervisor look at the processes under a session's panes again, now: a window
 * added changes the session, so the next tick looks at it (docs/status.md#incremental-wakes).
 * Returns once that tick, and one after it, have run.
 */
const lookAgain = async (session: string) => {
  await w.server.run(['new-window', '-d', '-t', `=${session}:`, 'sleep 600']);
  await supervisor.ticks();
};

beforeAll(async () => {
  w = await makeWorld();
  home = join(w.fe.root, 'agent-home');
  await mkdir(home, { recursive: true });
  await exportFleetEnv(w.server, w.fe);
  supervisor = await startSupervisor(w.server, w.fe);
});
afterAll(async () => {
  await supervisor?.stop().catch(() => undefined);
  await w?.close();
});

describe('Codex CLI without its hook', () => {
  it('is proven by the thread lock its process holds; the newest lock after a /clear is followed (reason clear)', async () => {
    const codex = join(w.fe.root, 'bin', 'codex');
    await mkdir(join(w.fe.root, 'bin'), { recursive: true });
    await copyFile('/bin/sleep', codex);
    const locks = join(home, '.codex', 'thread-writer-locks');
    await mkdir(locks, { recursive: true });
    const first = '01a23248-c2f6-71c3-bc0f-fe64ae2acc9c';
    const second = '01a23249-c707-7410-a550-d27c03c83e41';
    // A lock file whose name is not a session id is ignored.
    const script = join(w.fe.root, 'codex-stand-in.sh');
    await writeFile(
      script,
      [
        `exec 3>${sq(join(locks, '.coordination.lock'))}; flock 3`,
        `exec 4>${sq(join(locks, `${first}.lock`))}; flock 4`,
        // "/clear": a second thread's lock, taken when the file named in $1 appears.
        `( while [ ! -e "$1" ]; do sleep 0.1; done ) && exec 5>${sq(join(locks, `${second}.lock`))} && flock 5 && exec ${sq(codex)} 600`,
      ].join('\n'),
    );
    const clear = join(w.fe.root, 'clear-now');
    // The script runs as the pane's process and execs the stand-in: the same pid, as codex's native binary is spawned.
    const r = await w.fleet(['spawn', 'cx', '--cmd', `/bin/sh ${sq(script)} ${sq(clear)}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    // The lock is held by a shell first: no agent yet, no stamp, through the ticks after the shell took it.
    await waitFor(() => existsSync(join(locks, `${first}.lock`)), 'the first thread lock taken by the shell');
    await lookAgain('op-cx');
    expect(await opt('op-cx', '@claude_session_id')).toBe('');
    await writeFile(clear, '');
    const sid = await waitFor(() => opt('op-cx', '@claude_session_id'), 'the stamp by the newest thread lock', 20_000);
    expect(sid).toBe(second);
    expect((await opt('op-cx', '@fleet-stamp-agent')).split(' ')[0]).toBe('codex');
    expect(await w.waitOwner('cx')).toBe(second);
    const task = await w.readTask('cx');
    expect(task.driverAgent).toBe('codex');
    await waitFor(async () => (await opt('op-cx', '@fleet-agent')).includes('codex'), '@fleet-agent', 15_000);
  });
});

describe('Gemini CLI without its hook', () => {
  it('is proven by the --session-id of its argv once its chat file exists; never taken for a stamp it is not', async () => {
    const sid = '11111111-2222-4333-8444-555555555555';
    const gemini = join(w.fe.root, 'gemini');
    await writeFile(gemini, 'setTimeout(() => {}, 600000);\n');
    const chats = join(home, '.gemini', 'tmp', 'work', 'chats');
    await mkdir(chats, { recursive: true });
    // Its home as Gemini CLI reads it: .gemini under $GEMINI_CLI_HOME (the server's environment has one: this test's own).
    const cmd = `env GEMINI_CLI_HOME=${sq(home)} GEMINI_CLI_NO_RELAUNCH=true ${sq(process.execPath)} --max-old-space-size=100 ${sq(gemini)} --session-id ${sid}`;
    const r = await w.fleet(['spawn', 'gm', '--cmd', cmd]);
    expect(r.exitCode, r.stderr).toBe(0);
    // No chat file yet: nothing proven, through the ticks after its process runs.
    await waitFor(async () => (await w.display('op-gm', '#{pane_current_command}')) === 'node', 'the stand-in gemini running');
    await lookAgain('op-gm');
    expect(await opt('op-gm', '@claude_session_id')).toBe('');
    await writeFile(join(chats, `session-2026-12-01T15-49-${sid.slice(0, 8)}.jsonl`), `${JSON.stringify({ sessionId: sid, kind: 'main' })}\n`);
    expect(await waitFor(() => opt('op-gm', '@claude_session_id'), 'the stamp by --session-id', 20_000)).toBe(sid);
    expect(await w.waitOwner('gm')).toBe(sid);
    expect((await w.readTask('gm')).driverAgent).toBe('gemini');

    // The hook stamps an id of an in-app /clear: the stale --session-id never takes it back.
    const pane = await w.display('op-gm', '#{pane_id}');
    const cleared = '3f929c4b-5cc6-49e3-963d-e4a3493ba68c';
    expect((await w.fleet(['stamp', '--sid', cleared], { env: { TMUX_PANE: pane } })).exitCode).toBe(0);
    // Past the proof's windows of time (rules of time, waited for as such): the stamp has settled
    // (STAMP_SETTLE_MS) and the stamper may try the old id again (RETRY_MS). Then the supervisor looks again.
    await sleep(Math.max(STAMP_SETTLE_MS, RETRY_MS));
    await lookAgain('op-gm');
    expect(await opt('op-gm', '@claude_session_id')).toBe(cleared);
    expect((await w.fleet(['doctor', '--session', 'op-gm'])).stdout).toMatch(/✔ agent: Gemini CLI \(pid \d+\), started with --session-id 11111111/);

    // A chat newer than the one it started with, and not the stamp: an in-app /clear or /resume the hook did not follow. Doctor says so.
    const other = '4a4a4a4a-5cc6-49e3-963d-e4a3493ba68c';
    await writeFile(join(chats, `session-2026-12-01T16-00-${other.slice(0, 8)}.jsonl`), `${JSON.stringify({ sessionId: other })}\n`);
    const doctor = await w.fleet(['doctor', '--session', 'op-gm']);
    expect(doctor.stdout).toMatch(/✖ agent: Gemini CLI \(pid \d+\) started as 11111111, but the newest chat of .* is 4a4a4a4a: it may have switched sessions in the app/);
    expect(doctor.stdout).toMatch(/fix: tmux-fleet hooks install --agent gemini/);
  });
});

describe('a Claude Code of another home', () => {
  it("is proven by the row it writes in its own home's registry, read from its environment", async () => {
    const other = join(w.fe.root, 'second-claude-home');
    await mkdir(join(other, 'sessions'), { recursive: true });
    const claude = join(w.fe.root, 'bin', 'claude');
    await mkdir(join(w.fe.root, 'bin'), { recursive: true });
    await copyFile('/bin/sleep', claude);
    const r = await w.fleet(['spawn', 'c2', '--cmd', `env CLAUDE_CONFIG_DIR=${sq(other)} ${sq(claude)} 600`]);
    expect(r.exitCode, r.stderr).toBe(0);
    const pid = Number(await waitFor(async () => ((await w.display('op-c2', '#{pane_current_command}')) === 'claude' ? w.display('op-c2', '#{pane_pid}') : ''), 'the stand-in claude'));
    const sid = 'c2c2c2c2-0000-4000-8000-000000000002';
    // The row comes late, after the ticks the spawn caused: the supervisor looks again by itself while the session waits.
    await supervisor.ticks();
    expect(await opt('op-c2', '@claude_session_id')).toBe('');
    // Claude Code's row, in its own home (not the supervisor's registry).
    const start = (await import('node:fs')).readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
    await writeFile(join(other, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: sid, kind: 'interactive', procStart: start }));
    expect(await waitFor(() => opt('op-c2', '@claude_session_id'), 'the stamp by the row of the other home', 20_000)).toBe(sid);
    expect((await opt('op-c2', '@fleet-stamp-agent')).split(' ').slice(0, 2)).toEqual(['claude', String(pid)]);
  });
});
