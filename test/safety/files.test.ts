// Hostile files: a FIFO, a link, a device or a huge file in place of a file the
// helper reads; litter of killed writers; a fleet home another user made or can
// write to; a forged supervisor pid file.
// Every command must finish, refuse clearly, and never echo a file's content.
// Runs as root where a second user is needed (setpriv to uid 65534).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFleetHome, makePrivateDirs, privateDirProblem, taskDir } from '../../src/context';
import { readRegularFile, UnsafeFileError } from '../../src/fs-safe';
import { nudgeSupervisors, pidFileContent, supervisorPidFile, isOwnSupervisor } from '../../src/nudge';
import { pidExists } from '../../src/proc';
import { acquirePidFile } from '../../src/status/supervisor-lock';
import { CachedTaskLister, listTasks, removeLeftovers, updateTask } from '../../src/tasks/store';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';

const NOBODY = 65534;
const SID = '11111111-2222-4333-8444-555555555555';
const SECRET = 'SECRET-c0ntent-7f3a';
const isRoot = process.getuid?.() === 0;

let fe: FleetEnv;
const children: ChildProcess[] = [];

beforeEach(async () => {
  fe = await makeFleetEnv();
  await mkdir(join(fe.home, 'tasks'), { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await fe.cleanup();
});

const fleet = (args: string[], env: Record<string, string> = {}) =>
  runFleet(args, { env: { ...fe.env, ...env }, timeoutMs: 20_000 });

async function taskDirWith(slug: string): Promise<string> {
  const dir = taskDir(fe.home, slug);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', ['-m', '0600', path]);
}

/** A process that stays: `sleep`, optionally as another user. */
function sleeper(asUid?: number): ChildProcess {
  const argv = asUid === undefined ? ['sleep', '60'] : ['setpriv', `--reuid=${asUid}`, `--regid=${asUid}`, '--clear-groups', 'sleep', '60'];
  const c = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  children.push(c);
  return c;
}

describe('the safe reader', () => {
  it('refuses a FIFO, a link, a device and an oversized file without blocking, naming what it is and never the content', async () => {
    const dir = await taskDirWith('r');
    const secret = join(fe.root, 'secret');
    await writeFile(secret, `${SECRET}\n`);
    mkfifo(join(dir, 'fifo'));
    await symlink(secret, join(dir, 'link'));
    await writeFile(join(dir, 'big'), 'x'.repeat(2000));
    const cases: [string, string, RegExp][] = [
      [join(dir, 'fifo'), 'ENOTREG', /is a FIFO, not a regular file/],
      [join(dir, 'link'), 'ELOOP', /is a symbolic link/],
      ['/dev/zero', 'ENOTREG', /is a character device/],
      [join(dir, 'big'), 'EFBIG', /larger than 1 KiB/],
      [join(dir, 'none'), 'ENOENT', /does not exist/],
    ];
    for (const [file, code, problem] of cases) {
      let caught: unknown;
      try {
        readRegularFile(file, 1024);
      } catch (err) {
        caught = err;
      }
      expect(caught, file).toBeInstanceOf(UnsafeFileError);
      expect((caught as UnsafeFileError).code).toBe(code);
      expect((caught as UnsafeFileError).message).toMatch(problem);
      expect((caught as UnsafeFileError).message).not.toContain(SECRET);
    }
    expect(readRegularFile(secret, 1024)).toBe(`${SECRET}\n`);
  });
});

describe('a FIFO, a link or a device in place of task.json', () => {
  it('owner, tasks, sweep and takeover finish and say what the file is (a FIFO no longer hangs them)', async () => {
    mkfifo(join(await taskDirWith('px'), 'task.json'));
    const owner = await fleet(['owner', 'px', '--as', SID]);
    expect(owner.exitCode).toBe(5);
    const tasks = await fleet(['tasks']);
    expect(tasks.exitCode).toBe(0);
    expect(tasks.stderr).toContain('task.json: is a FIFO, not a regular file');
    const sweep = await fleet(['sweep']);
    expect(sweep.exitCode).not.toBe(-1);
    const takeover = await fleet(['takeover', 'px', '--as', SID, '--force']);
    expect(takeover.exitCode).toBe(1);
    expect(takeover.stderr).toContain('is a FIFO');
  });

  it('the readers of stamp and the supervisor (listTasks, CachedTaskLister) report it as an invalid task and go on', async () => {
    mkfifo(join(await taskDirWith('px'), 'task.json'));
    await updateTask(fe.home, 'ok', () => ({ slug: 'ok', driverSid: '' }), { create: true });
    for (const list of [() => listTasks(fe.home), () => new CachedTaskLister(fe.home).list()]) {
      const entries = await list();
      expect(entries.map((e) => e.slug)).toEqual(['ok', 'px']);
      expect(entries[1]?.error?.problem).toBe('is a FIFO, not a regular file (not read)');
    }
  });

  it('a task.json linked to another file is not followed, and no error shows that file', async () => {
    const secret = join(fe.root, 'shadow');
    await writeFile(secret, `root:${SECRET}:19000:0:99999:7:::\n`);
    await symlink(secret, join(await taskDirWith('px'), 'task.json'));
    for (const args of [['owner', 'px', '--as', SID], ['tasks'], ['takeover', 'px', '--as', SID, '--force']]) {
      const r = await fleet(args);
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(SECRET);
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).toMatch(/task\.json: is a symbolic link \(not followed\)/);
    }
  });

  it('a task.json that is not JSON is named with its position, never quoted', async () => {
    await writeFile(join(await taskDirWith('px'), 'task.json'), `${SECRET} and more`);
    const r = await fleet(['takeover', 'px', '--as', SID, '--force']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON \(unexpected character at position 0\)/);
    expect(r.stderr).not.toContain(SECRET);
  });
});

describe('a FIFO in place of settings.json', () => {
  it('hooks install and hooks status refuse it at once; doctor reports it as a failed check', async () => {
    mkfifo(join(fe.claudeDir, 'settings.json'));
    const install = await fleet(['hooks', 'install']);
    expect(install.exitCode).toBe(1);
    expect(install.stderr).toMatch(/settings\.json: is a FIFO, not a regular file .*nothing changed/);
    expect((await fleet(['hooks', 'status'])).exitCode).toBe(1);
    const doctor = await fleet(['doctor']);
    expect(doctor.stdout).toMatch(/✖ hook: .*settings\.json: is a FIFO/);
  });
});

describe('spawn --prompt-file', () => {
  it('/dev/zero ends with an error naming the 64 KiB limit; a FIFO task dir is never read', async () => {
    const r = await fleet(['spawn', 'pz', '--prompt-file', '/dev/zero']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--prompt-file /dev/zero: holds more than 64 KiB, the limit');
  });
});

describe('litter of killed writers', () => {
  it('temp files and moved-aside locks of dead pids older than a minute go at the next write; others stay', async () => {
    const dir = await taskDirWith('lit');
    await updateTask(fe.home, 'lit', () => ({ slug: 'lit', driverSid: '' }), { create: true });
    const dead = 999_999_0; // above pid_max's default: never a live process
    expect(pidExists(dead)).toBe(false);
    const old = (Date.now() - 5 * 60_000) / 1000;
    const names = {
      oldTmp: `.task.json.${dead}.abc.1.tmp`,
      oldStale: `.lock.stale-${dead}-1700000000000`,
      freshTmp: `.task.json.${dead}.abd.2.tmp`,
      liveTmp: `.task.json.${process.pid}.abe.3.tmp`,
      other: 'notes.txt',
    };
    for (const n of Object.values(names)) await writeFile(join(dir, n), 'x');
    for (const n of [names.oldTmp, names.oldStale, names.liveTmp, names.other]) await utimes(join(dir, n), old, old);
    await updateTask(fe.home, 'lit', (t) => t && { ...t, label: 'again' });
    const left = await readdir(dir);
    expect(left).not.toContain(names.oldTmp);
    expect(left).not.toContain(names.oldStale);
    expect(left).toEqual(expect.arrayContaining([names.freshTmp, names.liveTmp, names.other, 'task.json']));
    expect(await removeLeftovers(dir)).toEqual([]);
  });

  it('a lock left by a killed takeover (its process dead, or a zombie) is broken', async () => {
    const dir = await taskDirWith('lk');
    await updateTask(fe.home, 'lk', () => ({ slug: 'lk', driverSid: '' }), { create: true });
    // Dead: a process that ran and was reaped.
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    await writeFile(join(dir, '.lock'), `${gone.pid} -\n`);
    await updateTask(fe.home, 'lk', (t) => t && { ...t, label: 'after a dead holder' }, {});
    // A zombie: sh forks a short sleep and execs a long one, which never reaps it.
    const sh = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(sh);
    const zombie = Number(await new Promise<string>((r) => sh.stdout!.once('data', (d) => r(String(d).trim()))));
    await waitFor(() => / Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8')), 'a zombie');
    await writeFile(join(dir, '.lock'), `${zombie} -\n`);
    const r = await fleet(['takeover', 'lk', '--as', SID, '--force']);
    expect(r.stderr).not.toMatch(/could not lock/);
    expect(r.exitCode).toBe(0);
  });

  it('a lock that is a FIFO is broken, never read', async () => {
    const dir = await taskDirWith('lf');
    await updateTask(fe.home, 'lf', () => ({ slug: 'lf', driverSid: '' }), { create: true });
    mkfifo(join(dir, '.lock'));
    const r = await fleet(['takeover', 'lf', '--as', SID, '--force']);
    expect(r.exitCode).toBe(0);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });
});

describe('a fleet home that is not the user\'s alone', () => {
  it('privateDirProblem: owner, then group and others write bits; a directory is needed', () => {
    const cases: [string, { uid: number; mode: number; isDirectory: boolean }, RegExp | null][] = [
      ['mine, 0700', { uid: 1000, mode: 0o40700, isDirectory: true }, null],
      ['mine, 0755', { uid: 1000, mode: 0o40755, isDirectory: true }, null],
      ['mine, 0770', { uid: 1000, mode: 0o40770, isDirectory: true }, /writable by group$/],
      ['mine, 0757', { uid: 1000, mode: 0o40757, isDirectory: true }, /writable by others$/],
      ['mine, 0777', { uid: 1000, mode: 0o40777, isDirectory: true }, /writable by group and others$/],
      ['another user', { uid: 0, mode: 0o40700, isDirectory: true }, /owned by uid 0, not by you \(uid 1000\)/],
      ['a file', { uid: 1000, mode: 0o100600, isDirectory: false }, /not a directory/],
    ];
    for (const [what, facts, problem] of cases) {
      const p = privateDirProblem('/x', facts, 1000);
      if (problem === null) expect(p, what).toBeNull();
      else expect(p?.problem, what).toMatch(problem);
    }
    expect(privateDirProblem('/x', { uid: 1000, mode: 0o40777, isDirectory: true }, 1000)?.fix).toBe('chmod 700 /x');
  });

  it.runIf(isRoot)('a home, tasks/ or run/ made by nobody is refused with one line and exit 1; doctor names it with the fix', async () => {
    await chown(fe.home, NOBODY, NOBODY);
    await chmod(fe.home, 0o777);
    const owner = await fleet(['owner', 'px', '--as', 'EVIL-SID']);
    expect(owner.exitCode).toBe(1);
    expect(owner.stderr.trim().split('\n')).toEqual([
      `tmux-fleet: fleet home: ${fe.home} is owned by uid ${NOBODY}, not by you (uid 0); refusing to use it (fix: chown 0 ${fe.home} && chmod 700 ${fe.home})`,
    ]);
    const doctor = await fleet(['doctor']);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toContain(`✖ fleet home: ${fe.home} is owned by uid ${NOBODY}, not by you (uid 0) — fix: chown 0 ${fe.home}`);

    // Home fine, tasks/ swapped for one of nobody's.
    await chown(fe.home, 0, 0);
    await chmod(fe.home, 0o700);
    await chown(join(fe.home, 'tasks'), NOBODY, NOBODY);
    const swapped = await fleet(['owner', 'px', '--as', 'EVIL-SID']);
    expect(swapped.exitCode).toBe(1);
    expect(swapped.stderr).toContain(`fleet home: ${join(fe.home, 'tasks')} is owned by uid ${NOBODY}`);
  });

  it('a home writable by others is refused; a command makes nothing, a writer makes its directories 0700', async () => {
    await chmod(fe.home, 0o777);
    const r = await fleet(['tasks']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`fleet home: ${fe.home} is writable by group and others; refusing to use it (fix: chmod 700 ${fe.home})`);
    expect((await fleet(['doctor'])).stdout).toContain(`✖ fleet home: ${fe.home} is writable by group and others — fix: chmod 700 ${fe.home}`);

    await chmod(fe.home, 0o700);
    expect((await fleet(['tasks'])).exitCode).toBe(0);
    expect(checkFleetHome(fe.home)).toBeNull();
    const { existsSync, statSync } = await import('node:fs');
    expect(existsSync(join(fe.home, 'run'))).toBe(false); // a reader made nothing
    makePrivateDirs(fe.home);
    expect(statSync(join(fe.home, 'run')).mode & 0o777).toBe(0o700);
    expect(statSync(join(fe.home, 'tasks')).mode & 0o777).toBe(0o700);
  });
});

describe('the supervisor pid file', () => {
  it('a FIFO in its place is replaced, never opened for reading (the supervisor starts)', async () => {
    const file = supervisorPidFile(fe.home, '/tmp/fifo-socket');
    await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
    mkfifo(file);
    await acquirePidFile(fe.home, file, '/tmp/fifo-socket');
    expect(readRegularFile(file, 256)).toBe(pidFileContent(process.pid));
  });
});

describe('the supervisor nudge signals only our own supervise', () => {
  async function forgePidFile(pid: number, socket = '/tmp/forged-socket'): Promise<void> {
    const file = supervisorPidFile(fe.home, socket);
    await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
    await writeFile(file, pidFileContent(pid));
  }

  /** The signals a nudge sends, recorded as process.kill is called (and still sent): a signal is sent during the call or never. */
  function signalsOfNudge(): [number, string | number | undefined][] {
    const sent: [number, string | number | undefined][] = [];
    const kill = process.kill;
    process.kill = ((pid: number, signal?: string | number) => {
      sent.push([pid, signal]);
      return kill.call(process, pid, signal);
    }) as typeof process.kill;
    try {
      nudgeSupervisors(fe.home);
    } finally {
      process.kill = kill;
    }
    return sent;
  }

  /** A process of ours that /proc shows as a supervise (`supervise` among its arguments), deaf to the nudge. */
  function lookalikeSupervisor(): ChildProcess {
    const c = spawn(process.execPath, ['-e', "process.on('SIGUSR2', () => {}); setTimeout(() => {}, 60_000)", 'supervise'], { stdio: 'ignore' });
    children.push(c);
    return c;
  }

  it('a pid file naming our own supervise gets it nudged: the checks below can fail', async () => {
    const supervisor = lookalikeSupervisor();
    await waitFor(() => supervisor.pid !== undefined && isOwnSupervisor(supervisor.pid), 'the supervise look-alike');
    await forgePidFile(supervisor.pid!);
    expect(signalsOfNudge()).toEqual([[supervisor.pid, 'SIGUSR2']]);
  });

  it('a pid file naming another process of ours (not supervise) does not get it signalled', async () => {
    const victim = sleeper();
    await waitFor(() => victim.pid !== undefined && pidExists(victim.pid), 'the sleeper');
    await forgePidFile(victim.pid!);
    expect(isOwnSupervisor(victim.pid!)).toBe(false);
    expect(signalsOfNudge()).toEqual([]);
  });

  it.runIf(isRoot)('a pid file naming a process of another user does not get it signalled', async () => {
    const victim = sleeper(NOBODY);
    await waitFor(() => victim.pid !== undefined && pidExists(victim.pid), 'the sleeper');
    await forgePidFile(victim.pid!);
    expect(signalsOfNudge()).toEqual([]);
  });
});
