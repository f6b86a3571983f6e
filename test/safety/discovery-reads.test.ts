// Hostile input where agent discovery looks (src/agents/discover.ts): a
// machine whose /proc/locks is long with other processes' locks. Real
// processes, real files, real locks. How much a look reads is measured as
// this process's read bytes (/proc/self/io rchar).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codexThreadLocks } from '../../src/agents/discover';
import { makeTempDir, waitFor, type TempDir } from '../helpers/env';

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
