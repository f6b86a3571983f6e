// The proofs of the agents that write no registry row: Codex's thread locks
// (held with flock, the newest one current, other names ignored), Gemini's
// --session-id and chat files, Codex's daemon pid file; on real processes
// and files (util-linux flock holds the locks as Codex does).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexDaemonPid, codexThreadLocks, geminiChats, geminiSessionArg } from '../../src/agents/discover';
import { readProcStat } from '../../src/proc';
import { makeTempDir, waitFor, type TempDir } from '../helpers/env';

const OLD = '01a23248-c2f6-71c3-bc0f-fe64ae2acc9c';
const NEW = '01a23249-c707-7410-a550-d27c03c83e41';

let tmp: TempDir;
const children: ChildProcess[] = [];
beforeAll(async () => {
  tmp = await makeTempDir();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await tmp.cleanup();
});

/** A process that holds an flock on each file, then stays (the locks outlive the exec, as they belong to the open files). */
async function holder(files: string[], lock: boolean[] = files.map(() => true)): Promise<number> {
  const opens = files.map((f, i) => `exec ${i + 3}>'${f}'`).join('; ');
  const locks = files.map((_, i) => (lock[i] ? `flock ${i + 3}` : 'true')).join('; ');
  const child = spawn('sh', ['-c', `${opens}; ${locks}; exec sleep 60`], { stdio: 'ignore' });
  children.push(child);
  const pid = child.pid as number;
  await waitFor(() => readProcStat(pid) !== null && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep', 'the holder');
  return pid;
}

describe("Codex's thread locks", () => {
  it('the newest held lock is the current session; a name that is not a session id is ignored', async () => {
    const dir = join(tmp.path, '.codex', 'thread-writer-locks');
    await mkdir(dir, { recursive: true });
    const files = [`${OLD}.lock`, `${NEW}.lock`, '.coordination.lock', 'not-a-session.lock', `${NEW}.lock.tmp`].map((n) => join(dir, n));
    for (const f of files) await writeFile(f, '');
    const pid = await holder(files);
    expect(codexThreadLocks(pid)).toEqual([NEW, OLD]);
  });

  it('a lock file open but not locked does not count while another is held', async () => {
    const dir = join(tmp.path, 'b', 'thread-writer-locks');
    await mkdir(dir, { recursive: true });
    const files = [join(dir, `${OLD}.lock`), join(dir, `${NEW}.lock`)];
    for (const f of files) await writeFile(f, '');
    const pid = await holder(files, [true, false]);
    expect(codexThreadLocks(pid)).toEqual([OLD]);
  });

  it('a process without locks, and one that is gone, hold none', () => {
    expect(codexThreadLocks(process.pid)).toEqual([]);
    expect(codexThreadLocks(4_000_000)).toEqual([]);
  });
});

describe("Codex's daemon", () => {
  it('runs when its pid file names a live process with the recorded start; otherwise not', async () => {
    const home = join(tmp.path, 'codex-home');
    await mkdir(join(home, 'app-server-daemon'), { recursive: true });
    const file = join(home, 'app-server-daemon', 'daemon.pid');
    expect(codexDaemonPid(home)).toBeNull();
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(child);
    const pid = child.pid as number;
    const start = (await waitFor(() => readProcStat(pid), 'sleep'))!.startTicks;
    await writeFile(file, JSON.stringify({ pid, processStartTime: 'x', processIdentity: { bootId: 'b', startTicks: start } }));
    expect(codexDaemonPid(home)).toBe(pid);
    await writeFile(file, JSON.stringify({ pid, processIdentity: { startTicks: start + 1 } }));
    expect(codexDaemonPid(home)).toBeNull();
    await writeFile(file, 'not json');
    expect(codexDaemonPid(home)).toBeNull();
  });
});

describe("Gemini's session", () => {
  it.each([
    [['node', '/x/gemini', '--session-id', '11111111-2222-4333-8444-555555555555'], '11111111-2222-4333-8444-555555555555'],
    [['node', '/x/gemini', '--session-id=11111111-2222-4333-8444-555555555555', '-i', 'p'], '11111111-2222-4333-8444-555555555555'],
    [['node', '/x/gemini', '--session-id', '$(touch x)'], null],
    [['node', '/x/gemini', '--session-id'], null],
    [['node', '/x/gemini', '-i', 'p'], null],
    // A resume goes on under the id it names.
    [['node', '/x/gemini', '--resume', '11111111-2222-4333-8444-555555555555'], '11111111-2222-4333-8444-555555555555'],
    [['node', '/x/gemini', '-r', '11111111-2222-4333-8444-555555555555'], '11111111-2222-4333-8444-555555555555'],
    [['node', '/x/gemini', '--resume', 'latest'], null],
    [['node', '/x/gemini', '--resume', '3'], null],
  ])('%j', (argv, want) => {
    expect(geminiSessionArg(argv)).toBe(want);
  });

  it("chat files: the id each names first, newest first; a file whose name does not carry its id, or that is not JSON, is skipped", async () => {
    const dir = join(tmp.path, '.gemini');
    const chats = join(dir, 'tmp', 'work', 'chats');
    await mkdir(chats, { recursive: true });
    const a = '11111111-2222-4333-8444-555555555555';
    const b = '3f929c4b-5cc6-49e3-963d-e4a3493ba68c';
    const older = join(chats, `session-2026-12-01T15-49-${a.slice(0, 8)}.jsonl`);
    await writeFile(older, `${JSON.stringify({ sessionId: a, projectHash: 'h', startTime: 't', kind: 'main' })}\n{"$set":{}}\n`);
    // Written a minute before the next one.
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(older, minuteAgo, minuteAgo);
    await writeFile(join(chats, `session-2026-12-01T15-50-${b.slice(0, 8)}.jsonl`), `${JSON.stringify({ sessionId: b })}\n`);
    await writeFile(join(chats, 'session-2026-12-01T15-51-99999999.jsonl'), `${JSON.stringify({ sessionId: a })}\n`);
    await writeFile(join(chats, 'session-2026-12-01T15-52-aaaaaaaa.jsonl'), 'garbage\n');
    expect(geminiChats(dir).map((c) => c.sid)).toEqual([b, a]);
    expect(geminiChats(join(tmp.path, 'nothing'))).toEqual([]);
  });
});
