// Directories whose files decide who owns a task: the registry (and Claude
// Code's job state directory, <config>/jobs) get the fleet home's rule: owned
// by the user and writable by no one else, else not read, with one doctor
// line. A registry another user can write to let them rewrite the Driver's row
// (a new sessionId, a fresh updatedAt): the supervisor took it for a /clear and
// handed the task to the forged id. And a fleet home that is another user's
// link counts as theirs, wherever it points.
// Runs as root; "another user" is uid 65534 (setpriv), as in files.test.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, chown, lchown, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkFleetHome, dirTrustProblem } from '../../src/context';
import { CachedRegistryReader, readRegistry } from '../../src/registry/reader';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { exportFleetEnv, startSupervisor, type RunningSupervisor } from '../helpers/supervisor';
import { makeWorld, type World } from '../helpers/stand-in-world';

const NOBODY = 65534;
const UID = process.getuid?.() ?? 0;
const REAL = 'aaaa1111-2222-4333-8444-555555555555';
const FORGED = 'f0f0f0f0-2222-4333-8444-555555555555';

/** Runs a shell command as uid 65534. */
function asNobody(script: string, input?: string): void {
  execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', script], { input, stdio: ['pipe', 'ignore', 'pipe'] });
}

describe('dirTrustProblem: the one rule for directories whose files decide', () => {
  let fe: FleetEnv;
  beforeEach(async () => {
    fe = await makeFleetEnv();
  });
  afterEach(async () => {
    await fe.cleanup();
  });

  it('ours 0700 or 0755 (Claude Code makes sessions/ 0700, jobs/ 0755): trusted; missing: nothing to refuse', async () => {
    const dir = join(fe.root, 'd');
    expect(dirTrustProblem(dir)).toBeNull();
    await mkdir(dir, { mode: 0o700 });
    expect(dirTrustProblem(dir)).toBeNull();
    await chmod(dir, 0o755);
    expect(dirTrustProblem(dir)).toBeNull();
  });

  it.each([
    [0o777, 'is writable by group and others', 'chmod 700'],
    [0o775, 'is writable by group', 'chmod 700'],
    [0o1777, 'is writable by group and others', 'chmod 700'],
  ])('mode %o: %s', async (mode, problem, fix) => {
    const dir = join(fe.root, 'd');
    await mkdir(dir);
    await chmod(dir, mode);
    expect(dirTrustProblem(dir)).toMatchObject({ path: dir, problem });
    expect(dirTrustProblem(dir)?.fix).toContain(fix);
  });

  it('owned by another user: refused, whatever its mode', async () => {
    const dir = join(fe.root, 'd');
    await mkdir(dir, { mode: 0o755 });
    await chown(dir, NOBODY, NOBODY);
    expect(dirTrustProblem(dir)?.problem).toBe(`is owned by uid ${NOBODY}, not by you (uid ${UID})`);
  });

  it("a link: its owner counts, then the directory it names (a link of ours to another user's directory is refused too)", async () => {
    const ours = join(fe.root, 'ours');
    const theirs = join(fe.root, 'theirs');
    await mkdir(ours, { mode: 0o700 });
    await mkdir(theirs, { mode: 0o700 });
    await chown(theirs, NOBODY, NOBODY);
    await symlink(ours, join(fe.root, 'our-link'));
    await symlink(theirs, join(fe.root, 'our-link-to-theirs'));
    await symlink(ours, join(fe.root, 'their-link'));
    await lchown(join(fe.root, 'their-link'), NOBODY, NOBODY);
    expect(dirTrustProblem(join(fe.root, 'our-link'))).toBeNull();
    expect(dirTrustProblem(join(fe.root, 'our-link-to-theirs'))?.problem).toMatch(/is owned by uid 65534/);
    expect(dirTrustProblem(join(fe.root, 'their-link'))?.problem).toBe(`is a link owned by uid ${NOBODY}, not by you (uid ${UID})`);
  });

  it("a fleet home that is another user's link to a private directory of ours is refused, by every command", async () => {
    const ours = join(fe.root, 'ours');
    await mkdir(ours, { mode: 0o700 });
    await rm(fe.home, { recursive: true, force: true });
    await symlink(ours, fe.home);
    await lchown(fe.home, NOBODY, NOBODY);
    expect(checkFleetHome(fe.home)?.problem).toBe(`is a link owned by uid ${NOBODY}, not by you (uid ${UID})`);
    const r = await runFleet(['tasks'], { env: fe.env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`fleet home: ${fe.home} is a link owned by uid ${NOBODY}`);
    expect(await readdir(ours)).toEqual([]);
  });
});

describe('stamp (the SessionStart hook) on a refused fleet home', () => {
  let fe: FleetEnv;
  beforeEach(async () => {
    fe = await makeFleetEnv();
    await mkdir(join(fe.home, 'tasks'), { recursive: true, mode: 0o700 });
  });
  afterEach(async () => {
    await fe.cleanup();
  });
  const stamp = () => runFleet(['stamp'], { env: { ...fe.env, TMUX_PANE: '%0' }, input: JSON.stringify({ session_id: REAL, source: 'startup' }) });

  it('tasks/ writable by others: prints nothing, exits 0, and the home (ours) gets the log line', async () => {
    await chmod(join(fe.home, 'tasks'), 0o777);
    const r = await stamp();
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(readFileSync(join(fe.home, 'log'), 'utf8')).toMatch(/stamp\[\d+\]: fleet home: .*tasks is writable by group and others; refusing to use it/);
  });

  it("a home of another user: prints nothing, exits 0, writes nothing there", async () => {
    await chown(fe.home, NOBODY, NOBODY);
    const r = await stamp();
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect((await readdir(fe.home)).sort()).toEqual(['tasks']);
  });
});

describe('a registry another user can write to is not read', () => {
  let fe: FleetEnv;
  beforeEach(async () => {
    fe = await makeFleetEnv();
    await writeFile(join(fe.registry, `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: REAL }));
  });
  afterEach(async () => {
    await fe.cleanup();
  });

  it.each([
    ['mode 777', async (dir: string) => chmod(dir, 0o777), 'is writable by group and others'],
    ["another user's", async (dir: string) => chown(dir, NOBODY, NOBODY), `is owned by uid ${NOBODY}`],
  ])('%s: no row read (liveness unknown), the reason kept for doctor', async (_what, make, problem) => {
    expect((await readRegistry(fe.registry)).entries).toHaveLength(1);
    await make(fe.registry);
    const snap = await readRegistry(fe.registry);
    expect(snap.entries).toEqual([]);
    expect(snap.readable).toBe(false);
    expect(snap.untrusted?.problem).toContain(problem);
    const cached = await new CachedRegistryReader(fe.registry).read();
    expect(cached.entries).toEqual([]);
    expect(cached.untrusted?.problem).toContain(problem);

    // The judge does not take the rows' word either: the owner's liveness is unknown, never gone.
    await mkdir(join(fe.home, 'tasks', 'held'), { recursive: true, mode: 0o700 });
    await writeFile(join(fe.home, 'tasks', 'held', 'task.json'), JSON.stringify({ slug: 'held', driverSid: REAL }), { mode: 0o600 });
    const owner = await runFleet(['owner', 'held', '--as', FORGED, '--json'], { env: fe.env });
    expect(owner.exitCode).toBe(9);
    expect(JSON.parse(owner.stdout)).toMatchObject({ owner: REAL, liveness: 'unknown' });
    const doctor = await runFleet(['doctor'], { env: fe.env });
    const lines = doctor.stdout.split('\n').filter((l) => l.includes(fe.registry));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`✖ registry: ${fe.registry} ${problem}`);
    expect(lines[0]).toContain('not read');
  });

  it('a cached reader that read rows drops them when the directory becomes writable by others', async () => {
    const reader = new CachedRegistryReader(fe.registry);
    expect((await reader.read()).entries).toHaveLength(1);
    await chmod(fe.registry, 0o777);
    expect((await reader.read(new Set([`${process.pid}.json`]))).entries).toEqual([]);
  });
});

describe('a forged Driver row in a registry anyone can write to, with the supervisor running', () => {
  let w: World;
  let supervisor: RunningSupervisor;

  beforeAll(async () => {
    w = await makeWorld();
    await exportFleetEnv(w.server, w.fe);
    supervisor = await startSupervisor(w.server, w.fe);
  });
  afterAll(async () => {
    await supervisor?.stop().catch(() => undefined);
    await w?.close();
  });

  it('is never taken for a /clear: the task stays with the real Driver, the forged id is not the owner', async () => {
    const r = await w.fleet(['spawn', 'fg', '--cmd', w.standInCmd({ STAND_IN_SID: REAL })]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await w.waitOwner('fg')).toBe(REAL);
    await waitFor(async () => (await w.readTask('fg')).driverPid !== undefined, 'the Driver process recorded', 15_000);
    const pid = (await w.readTask('fg')).driverPid as number;

    // The registry made writable by all (and reachable), then another user rewrites the Driver's row.
    await chmod(w.fe.root, 0o711);
    await chmod(w.fe.claudeDir, 0o711);
    await chmod(w.fe.registry, 0o777);
    const row = JSON.parse(readFileSync(join(w.fe.registry, `${pid}.json`), 'utf8')) as Record<string, unknown>;
    const forged = JSON.stringify({ ...row, sessionId: FORGED, updatedAt: Date.now() + 1000 });
    asNobody(`cat > "$1/.forged" && mv -f "$1/.forged" "$1/${pid}.json"`.replace(/\$1/g, w.fe.registry), forged);

    const log = () => readFileSync(join(w.fe.home, 'log'), 'utf8');
    const outcome = await waitFor(async () => {
      if ((await w.readTask('fg')).driverSid === FORGED) return 'handed over to the forged id';
      return log().includes(`registry: ${w.fe.registry} is writable by group and others; not read`) ? 'ignored' : '';
    }, 'the supervisor to act on the forged row', 20_000);
    expect(outcome).toBe('ignored');

    // A later wake (a task file changed) still hands nothing over.
    await w.writeTask('probe', { driverSid: REAL });
    // Made and bound in one tmux call: the session-created hook's wake reads it bound (set-option fires no hook).
    await w.server.tmux.chain([
      ['new-session', '-d', '-s', 'probe-session', 'sleep', '86400'],
      ['set-option', '-t', '=probe-session:', '@fleet-task', 'probe'],
    ]);
    await waitFor(async () => (await w.server.run(['show-options', '-qv', '-t', '=probe-session:', '@fleet-owner'])).includes('probe'), 'a later wake', 15_000);
    const task = await w.readTask('fg');
    expect(task.driverSid).toBe(REAL);
    expect(task.handovers ?? []).toEqual([]);
    expect((await w.fleet(['owner', 'fg', '--as', FORGED])).exitCode).not.toBe(0);
    expect((await w.fleet(['owner', 'fg', '--as', REAL])).exitCode).toBe(0);
    // One log line for the untrusted registry, not one per wake.
    expect(log().split('\n').filter((l) => l.includes('not read')).length).toBe(1);
  });
});
