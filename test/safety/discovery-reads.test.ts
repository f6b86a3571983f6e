// Hostile files where agent discovery looks (src/agents/discover.ts): a FIFO,
// a link or a huge file as a Gemini chat, another Claude home's row or Codex's
// daemon pid file; another Claude home's registry others can write to; a
// machine whose /proc/locks is long with other processes' locks. Each read is
// the safe reader's (no link followed, no FIFO waited on, capped) or a bounded
// read of what is needed; real processes, real files, real locks. How much a
// look reads is measured as this process's read bytes (/proc/self/io rchar).
// Runs as root where a second user is needed (the row's owner: uid 65534).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentDiscovery, codexDaemonPid, codexThreadLocks, geminiChats } from '../../src/agents/discover';
import { readProcStat } from '../../src/proc';
import { makeTempDir, waitFor, type TempDir } from '../helpers/env';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const SID = '6a6a6a6a-1111-4222-8333-444444444444';
const LOCK_SID = '01a23249-c707-7410-a550-d27c03c83e41';

let tmp: TempDir;
const children: ChildProcess[] = [];
beforeAll(async () => {
  tmp = await makeTempDir();
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(async () => {
  await tmp.cleanup();
});

/** The bytes this process has read so far (read(2) and its kin, files and pipes alike). */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

function keep(child: ChildProcess): number {
  children.push(child);
  return child.pid as number;
}

/**
 * A FIFO whose writer comes a moment after a reader would have opened it, and
 * writes `content`: a reader that waits on it gets content that proves
 * something, and the test sees the wait instead of hanging on it.
 */
function fifoWithLateWriter(path: string, content: string): void {
  execFileSync('mkfifo', ['-m', '0600', path]);
  keep(spawn('sh', ['-c', 'sleep 1; printf "%s" "$1" > "$2"', 'sh', content, path], { stdio: 'ignore' }));
}

const waitStarted = (pid: number) => waitFor(() => readProcStat(pid), `process ${pid}`);

/** A Gemini CLI agent process as kind.ts tells it: node running a script named gemini with GEMINI_CLI_NO_RELAUNCH=true, --session-id. */
async function fakeGemini(home: string, sid: string): Promise<number> {
  const script = join(tmp.path, 'gemini');
  await writeFile(script, 'setTimeout(() => {}, 600000);\n');
  const pid = keep(spawn(process.execPath, [script, '--session-id', sid], { stdio: 'ignore', env: { GEMINI_CLI_HOME: home, GEMINI_CLI_NO_RELAUNCH: 'true' } }));
  await waitFor(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--session-id'), 'the gemini stand-in');
  return pid;
}

/** A process that is Claude Code by its executable's name, with its home in the environment. */
async function fakeClaude(configDir: string): Promise<{ pid: number; start: number }> {
  const bin = join(tmp.path, 'bin', 'claude');
  await mkdir(join(tmp.path, 'bin'), { recursive: true });
  await copyFile('/bin/sleep', bin).catch(() => undefined);
  const pid = keep(spawn(bin, ['600'], { stdio: 'ignore', env: { CLAUDE_CONFIG_DIR: configDir } }));
  const start = (await waitStarted(pid))!.startTicks;
  return { pid, start };
}

const chatLine = (sid: string) => `${JSON.stringify({ sessionId: sid, projectHash: 'h', startTime: 't', kind: 'main' })}\n`;
const chatName = (sid: string, minute = 49) => `session-2026-12-01T15-${minute}-${sid.slice(0, 8)}.jsonl`;

describe("Gemini's chat files", () => {
  it('a FIFO named as the chat of the id is not waited on and proves nothing', async () => {
    const home = join(tmp.path, 'g-fifo');
    const chats = join(home, '.gemini', 'tmp', 'p', 'chats');
    await mkdir(chats, { recursive: true });
    fifoWithLateWriter(join(chats, chatName(SID)), chatLine(SID));
    const pid = await fakeGemini(home, SID);
    const found = new AgentDiscovery().discover([{ session: 's', pid: String(pid) }], new Set());
    expect(found.kinds.get('s')?.kind).toBe('gemini');
    expect(found.rows).toEqual([]);
    expect(found.recheck).toBe(true);
    expect(geminiChats(join(home, '.gemini'))).toEqual([]);
  });

  it('a link named as a chat is not followed (one to /dev/zero neither)', async () => {
    const dir = join(tmp.path, 'g-link', '.gemini');
    const chats = join(dir, 'tmp', 'p', 'chats');
    await mkdir(chats, { recursive: true });
    const elsewhere = join(tmp.path, 'elsewhere.jsonl');
    await writeFile(elsewhere, chatLine(SID));
    await symlink(elsewhere, join(chats, chatName(SID)));
    expect(geminiChats(dir)).toEqual([]);
    await symlink('/dev/zero', join(chats, chatName('0d0d0d0d-1111-4222-8333-444444444444', 50)));
    expect(geminiChats(dir)).toEqual([]);
  });

  it('forty chats of 25 MB: a look reads their first lines only, and the pane waiting for its chat reads none of them', async () => {
    const home = join(tmp.path, 'g-big');
    const dir = join(home, '.gemini');
    const chats = join(dir, 'tmp', 'p', 'chats');
    await mkdir(chats, { recursive: true });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const sid = `${(0x10000000 + i).toString(16)}-1111-4222-8333-444444444444`;
      ids.push(sid);
      const file = join(chats, chatName(sid, 10 + i));
      await writeFile(file, chatLine(sid));
      // 25 MB, sparse: nothing on disk, 25 MB for whoever reads it whole.
      await truncate(file, 25 * 1024 * 1024);
    }
    let before = bytesRead();
    expect(geminiChats(dir).map((c) => c.sid).sort()).toEqual(ids);
    expect(bytesRead() - before).toBeLessThan(40 * 8192);

    // A Gemini whose chat is not written yet: looked at again and again while it waits.
    const pid = await fakeGemini(home, SID);
    const discovery = new AgentDiscovery();
    before = bytesRead();
    for (let i = 0; i < 5; i++) expect(discovery.discover([{ session: 's', pid: String(pid) }], new Set()).rows).toEqual([]);
    expect(bytesRead() - before).toBeLessThan(256 * 1024);
  });
});

describe("Codex's daemon pid file", () => {
  it('a FIFO or a link in its place is not read: no daemon', async () => {
    const sleeper = keep(spawn('sleep', ['600'], { stdio: 'ignore' }));
    const start = (await waitStarted(sleeper))!.startTicks;
    const content = JSON.stringify({ pid: sleeper, processIdentity: { startTicks: start } });
    const fifoHome = join(tmp.path, 'cx-fifo');
    await mkdir(join(fifoHome, 'app-server-daemon'), { recursive: true });
    fifoWithLateWriter(join(fifoHome, 'app-server-daemon', 'daemon.pid'), content);
    expect(codexDaemonPid(fifoHome)).toBeNull();
    const linkHome = join(tmp.path, 'cx-link');
    await mkdir(join(linkHome, 'app-server-daemon'), { recursive: true });
    await writeFile(join(tmp.path, 'daemon.pid'), content);
    await symlink(join(tmp.path, 'daemon.pid'), join(linkHome, 'app-server-daemon', 'daemon.pid'));
    expect(codexDaemonPid(linkHome)).toBeNull();
    // The same content as a regular file: the daemon.
    const plain = join(tmp.path, 'cx-plain');
    await mkdir(join(plain, 'app-server-daemon'), { recursive: true });
    await writeFile(join(plain, 'app-server-daemon', 'daemon.pid'), content);
    expect(codexDaemonPid(plain)).toBe(sleeper);
  });
});

describe('a Claude Code of another home', () => {
  it('a FIFO as its sessions/<pid>.json is not waited on: no row', async () => {
    const other = join(tmp.path, 'c-fifo');
    await mkdir(join(other, 'sessions'), { recursive: true, mode: 0o700 });
    const { pid, start } = await fakeClaude(other);
    fifoWithLateWriter(join(other, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: SID, kind: 'interactive', procStart: String(start) }));
    const found = new AgentDiscovery().discover([{ session: 's', pid: String(pid) }], new Set());
    expect(found.kinds.get('s')?.kind).toBe('claude');
    expect(found.rows).toEqual([]);
  });

  it.runIf(isRoot)('a registry others can write to (sessions/ 1777) is not read: a row another user wrote there proves nothing, and the session says why', async () => {
    const other = join(tmp.path, 'c-open');
    await mkdir(join(other, 'sessions'), { recursive: true });
    await chmod(join(other, 'sessions'), 0o1777);
    const { pid, start } = await fakeClaude(other);
    const row = join(other, 'sessions', `${pid}.json`);
    await writeFile(row, JSON.stringify({ pid, sessionId: SID, kind: 'interactive', procStart: String(start) }));
    await chown(row, NOBODY, NOBODY);
    const found = new AgentDiscovery().discover([{ session: 's', pid: String(pid) }], new Set());
    expect(found.rows).toEqual([]);
    expect(found.unprovable.get('s')).toMatch(/^Claude Code \(pid \d+\) keeps its session row in another home.s registry: .*\/sessions is writable by group and others; not read \(fix: chmod 700 .*\/sessions\)$/);
    // The same row once the directory is the user's alone: the proof.
    await chmod(join(other, 'sessions'), 0o700);
    await chown(row, 0, 0);
    const again = new AgentDiscovery().discover([{ session: 's', pid: String(pid) }], new Set());
    expect(again.rows.map((r) => r.row.sessionId)).toEqual([SID]);
    expect(again.unprovable.size).toBe(0);
  });
});

describe("Codex's thread lock on a machine full of locks", () => {
  it("is read from the agent's own open files, not from every lock of the machine", async () => {
    // Another process holds 19,000 flocks, each on a file of its own: /proc/locks lists every one of them.
    const junk = join(tmp.path, 'junk');
    await mkdir(junk);
    const perl = 'use Fcntl ":flock"; $| = 1; my @h; for my $i (1..19000) { open(my $f, ">", "$ARGV[0]/$i") or die; flock($f, LOCK_EX) or die; push @h, $f } print "ready\\n"; sleep 600';
    const holder = spawn('perl', ['-e', perl, junk], { stdio: ['ignore', 'pipe', 'inherit'] });
    keep(holder);
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
    });
    expect(readFileSync('/proc/locks', 'utf8').split('\n').length).toBeGreaterThan(19_000);

    const locks = join(tmp.path, '.codex', 'thread-writer-locks');
    await mkdir(locks, { recursive: true });
    const file = join(locks, `${LOCK_SID}.lock`);
    await writeFile(file, '');
    const codex = keep(spawn('sh', ['-c', `exec 3>'${file}'; flock 3; exec sleep 600`], { stdio: 'ignore' }));
    await waitFor(() => readFileSync(`/proc/${codex}/comm`, 'utf8').trim() === 'sleep', 'the lock holder');

    const before = bytesRead();
    expect(codexThreadLocks(codex)).toEqual([LOCK_SID]);
    expect(bytesRead() - before).toBeLessThan(64 * 1024);
  });
});
