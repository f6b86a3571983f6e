// The supervisor against hostile files where it looks for agents that write no
// registry row here (src/agents/discover.ts), on a real tmux server with
// stand-ins that are, by their process, Claude Code, Codex CLI and Gemini CLI:
// - FIFOs in place of a Gemini chat, another Claude home's sessions/<pid>.json
//   and Codex's app-server-daemon/daemon.pid, and a chat that is a link to
//   /dev/zero: the supervisor is not blocked, not bloated, and goes on
//   stamping (a later agent of another home is stamped);
// - another Claude home whose sessions/ is mode 1777, with a row another user
//   (uid 65534) wrote there for the agent's pid: it stamps nothing, never
//   becomes the task's owner, and the session says it cannot tell.
// Runs as root where a second user is needed (the row's owner).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProcStat } from '../../src/proc';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { waitFor } from '../helpers/env';
import { makeWorld, sq, type World } from '../helpers/stand-in-world';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const GEMINI_SID = '6a6a6a6a-1111-4222-8333-444444444444';
const FORGED = 'f0f0f0f0-0000-4000-8000-000000000001';

let w: World;
let supervisor: RunningSupervisor;
let bin: string;
const opt = async (session: string, name: string) => (await w.server.run(['show-options', '-qv', '-t', `=${session}:`, name])).trim();

beforeAll(async () => {
  w = await makeWorld();
  bin = join(w.fe.root, 'bin');
  await mkdir(bin, { recursive: true });
  // Stand-ins that are these agents by their executable's name.
  await copyFile('/bin/sleep', join(bin, 'claude'));
  await copyFile('/bin/sleep', join(bin, 'codex'));
  await exportFleetEnv(w.server, w.fe);
  supervisor = await startSupervisor(w.server, w.fe);
});
afterAll(async () => {
  // A supervisor blocked on a FIFO does not end on SIGTERM.
  supervisor?.proc.kill('SIGKILL');
  await w?.close();
});

/** The pid of the stand-in that runs as session op-<slug>'s pane, once it runs (the pane's process execs it). */
async function paneAgent(slug: string, comm: string): Promise<{ pid: number; start: number }> {
  const pid = Number(await waitFor(async () => ((await w.display(`op-${slug}`, '#{pane_current_command}')) === comm ? w.display(`op-${slug}`, '#{pane_pid}') : ''), `${comm} in op-${slug}`));
  return { pid, start: readProcStat(pid)!.startTicks };
}

/** Spawns a Claude Code stand-in of another home; returns its process. */
async function claudeOfHome(slug: string, home: string): Promise<{ pid: number; start: number }> {
  const r = await w.fleet(['spawn', slug, '--cmd', `env CLAUDE_CONFIG_DIR=${sq(home)} ${sq(join(bin, 'claude'))} 600`]);
  expect(r.exitCode, r.stderr).toBe(0);
  return paneAgent(slug, 'claude');
}

const row = (pid: number, start: number, sid: string) => JSON.stringify({ pid, sessionId: sid, kind: 'interactive', procStart: String(start) });

describe('hostile files where the supervisor looks for agents', () => {
  it('FIFOs and a link to /dev/zero block nothing and bloat nothing: a later agent is still stamped', async () => {
    // Gemini: a FIFO named as the chat of its id, and a link to /dev/zero under the same id's name.
    const gHome = join(w.fe.root, 'gemini-home');
    const chats = join(gHome, '.gemini', 'tmp', 'p', 'chats');
    await mkdir(chats, { recursive: true });
    execFileSync('mkfifo', [join(chats, `session-2026-12-01T15-49-${GEMINI_SID.slice(0, 8)}.jsonl`)]);
    await symlink('/dev/zero', join(chats, `session-2026-12-01T15-50-${GEMINI_SID.slice(0, 8)}.jsonl`));
    const gemini = join(w.fe.root, 'gemini');
    await writeFile(gemini, 'setTimeout(() => {}, 600000);\n');
    const g = await w.fleet(['spawn', 'gm', '--cmd', `env GEMINI_CLI_HOME=${sq(gHome)} GEMINI_CLI_NO_RELAUNCH=true ${sq(process.execPath)} ${sq(gemini)} --session-id ${GEMINI_SID}`]);
    expect(g.exitCode, g.stderr).toBe(0);

    // Codex: a FIFO as its home's daemon pid file (read while its Codex holds no thread lock).
    const cHome = join(w.fe.root, 'codex-home');
    await mkdir(join(cHome, 'app-server-daemon'), { recursive: true });
    execFileSync('mkfifo', [join(cHome, 'app-server-daemon', 'daemon.pid')]);
    const c = await w.fleet(['spawn', 'cx', '--cmd', `env CODEX_HOME=${sq(cHome)} ${sq(join(bin, 'codex'))} 600`]);
    expect(c.exitCode, c.stderr).toBe(0);

    // Claude Code of another home: a FIFO as its row.
    const fifoHome = join(w.fe.root, 'claude-fifo');
    await mkdir(join(fifoHome, 'sessions'), { recursive: true, mode: 0o700 });
    const f = await claudeOfHome('cf', fifoHome);
    execFileSync('mkfifo', [join(fifoHome, 'sessions', `${f.pid}.json`)]);

    // A Claude Code of another home with a real row, after all of them: the supervisor still proves it.
    const okHome = join(w.fe.root, 'claude-ok');
    await mkdir(join(okHome, 'sessions'), { recursive: true, mode: 0o700 });
    const ok = await claudeOfHome('ok', okHome);
    const sid = 'c2c2c2c2-0000-4000-8000-000000000002';
    await writeFile(join(okHome, 'sessions', `${ok.pid}.json`), row(ok.pid, ok.start, sid));
    expect(await waitFor(() => opt('op-ok', '@claude_session_id'), 'the stamp of the later agent', 20_000)).toBe(sid);
    expect(await w.waitOwner('ok')).toBe(sid);

    // Nothing was taken from the hostile files; the supervisor runs, small.
    for (const s of ['op-gm', 'op-cx', 'op-cf']) expect(await opt(s, '@claude_session_id')).toBe('');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${supervisor.pid}/status`, 'utf8'))?.[1]);
    expect(rssKb).toBeLessThan(300 * 1024);
  });

  it.runIf(isRoot)("another home's registry that others can write to: a row another user wrote there stamps nothing and owns nothing", async () => {
    const open = join(w.fe.root, 'claude-open');
    await mkdir(join(open, 'sessions'), { recursive: true });
    await chmod(join(open, 'sessions'), 0o1777);
    const agent = await claudeOfHome('op', open);
    // Another user's row for the agent's pid, in the directory everyone may write to.
    const file = join(open, 'sessions', `${agent.pid}.json`);
    await writeFile(file, row(agent.pid, agent.start, FORGED));
    await chown(file, NOBODY, NOBODY);

    // The supervisor looked: it says it cannot tell (the proof it would have made is refused), or it took the row.
    await waitFor(async () => (await opt('op-op', '@claude_session_id')) !== '' || (await opt('op-op', '@fleet-owner')).includes('cannot tell'), 'the supervisor to look', 20_000);
    expect(await opt('op-op', '@claude_session_id')).toBe('');
    expect(await opt('op-op', '@fleet-owner')).toContain('op cannot tell');
    expect((await w.readTask('op')).driverSid).toBe('');
    const owner = await w.fleet(['owner', 'op', '--as', FORGED]);
    expect(owner.exitCode).not.toBe(0);
    expect(owner.stdout).toMatch(/^5 /);
    const doctor = await w.fleet(['doctor', '--session', 'op-op']);
    expect(doctor.stdout).toMatch(/✖ agent: cannot be proven for op-op/);
    expect(doctor.stdout).toMatch(/claude-open\/sessions is writable by group and others; not read \(fix: chmod 700 .*claude-open\/sessions\)/);
  });
});
