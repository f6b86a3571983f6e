// A job id from the registry reaches a command line (`<agent cmd> attach|logs|stop
// <id>`): one that starts with `-` would be an option of the agent
// (`--dangerously-skip-permissions`). Claude Code's job ids are the first 8
// hex characters of the job's session id; a row with anything else is not read.
// Real tmux server, the agent command a script that records its argv; the
// attention key (`attention --jump`) and the dashboard's Enter, l and x y.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRegistry } from '../../src/registry/reader';
import { isJobId } from '../../src/registry/job-id';
import { assertJobId } from '../../src/dashboard/jobs';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN } from '../helpers/paths';
import { exportFleetEnv } from '../helpers/supervisor';
import { sq, startServer, type TestServer } from '../helpers/tmux-server';

const HOSTILE = '--dangerously-skip-permissions';
const GOOD = 'e9e4ae8e';

let server: TestServer;
let fenv: FleetEnv;
let record: string;
const sleepers: ChildProcess[] = [];

function sleeper(): number {
  const p = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
  sleepers.push(p);
  return p.pid as number;
}

const recorded = async () => (await readFile(record, 'utf8').catch(() => '')).split('\n').filter(Boolean);
const screenOf = (session: string) => server.run(['capture-pane', '-p', '-t', `=${session}:`]);

async function writeRow(row: Record<string, unknown>): Promise<void> {
  await writeFile(join(fenv.registry, `${row.pid as number}.json`), JSON.stringify(row));
}

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await exportFleetEnv(server, fenv);
  record = join(fenv.root, 'agent-argv');
  const agent = join(fenv.root, 'fake-claude');
  await writeFile(agent, `#!/bin/sh\nprintf '%s\\n' "$*" >> ${sq(record)}\ncase "$1" in attach) sleep 600 ;; esac\n`);
  await chmod(agent, 0o755);
  await server.run(['set-option', '-g', '@fleet-agent-cmd', agent]);
  await server.newSession('work');
  const now = Date.now();
  // The hostile job has waited longest: before the fix it is the one the attention key opens.
  const job = (jobId: string, since: number) => ({
    pid: sleeper(),
    sessionId: `${GOOD}-ce05-4a4a-8b8b-0123456789ab`,
    kind: 'bg',
    jobId,
    status: 'waiting',
    waitingFor: 'approve Bash',
    statusUpdatedAt: since,
    startedAt: now - 600_000,
  });
  await writeRow(job(HOSTILE, now - 300_000));
  await writeRow({ ...job(GOOD, now - 60_000), sessionId: `${GOOD}-1111-4111-8111-111111111111` });
  await writeRow({ pid: sleeper(), sessionId: 'a7ffa1f6-1111-4111-8111-111111111111', kind: 'interactive', status: 'idle', parkedJobId: '-x' });
});

afterAll(async () => {
  await server?.kill();
  for (const p of sleepers) p.kill();
  await fenv?.cleanup();
});

describe('job ids as Claude Code writes them', () => {
  it.each([
    [GOOD, true],
    ['a3f69ffe', true],
    [HOSTILE, false],
    ['-e9e4ae8', false],
    ['E9E4AE8E', false],
    ['e9e4ae8', false],
    ['e9e4ae8e0', false],
    ['e9e4ae8g', false],
    ['', false],
  ])('%j is a job id: %s', (id, ok) => {
    expect(isJobId(id)).toBe(ok);
    if (ok) expect(assertJobId(id)).toBe(id);
    else expect(() => assertJobId(id)).toThrow(/not a background job id/);
  });

  it('a row whose jobId or parkedJobId is not one is not read (counted as malformed)', async () => {
    const snap = await readRegistry(fenv.registry);
    expect(snap.entries.map((e) => e.row.jobId)).toEqual([GOOD]);
    expect(snap.malformed).toBe(2);
  });
});

describe('no job id reaches the agent as an option', () => {
  it('attention --jump opens the real job, never the hostile one', async () => {
    const list = await runFleet(['attention'], { env: fenv.env });
    expect(list.stdout).not.toContain(HOSTILE);
    const r = await runFleet(['attention', '--jump'], { env: fenv.env });
    expect(r.stdout.trim()).toBe(`job ${GOOD}: opened in fleet-jobs`);
    await waitFor(async () => (await recorded()).includes(`attach ${GOOD}`), 'attach recorded', 10_000);
    expect((await recorded()).join('\n')).not.toMatch(/(^| )-/m);
  });

  it('the dashboard never shows the hostile job; Enter, l and x y act on real ids only', async () => {
    await server.newSession('dash', [process.execPath, FLEET_BIN, 'dashboard']);
    const screen = await waitFor(async () => {
      const s = await screenOf('dash');
      return s.includes(`job ${GOOD}`) ? s : null;
    }, 'dashboard drawn', 15_000);
    expect(screen).not.toContain('dangerously');
    // Each key, then what it does: every command the dashboard runs has run before the argv are checked.
    const attaches = () => recorded().then((r) => r.filter((l) => l === `attach ${GOOD}`).length);
    const attachedBefore = await attaches();
    const steps: [string, () => Promise<boolean>, string][] = [
      ['l', async () => (await recorded()).includes(`logs ${GOOD}`) && (await screenOf('dash')).includes('any key: back'), 'the logs shown'],
      ['q', async () => (await screenOf('dash')).includes('j/k move'), 'the table again'],
      ['x', async () => (await screenOf('dash')).includes(`stop background job ${GOOD}? (y/n)`), 'the question'],
      ['y', async () => (await recorded()).includes(`stop ${GOOD}`), 'stop recorded'],
      ['Enter', async () => (await attaches()) > attachedBefore, 'attach recorded'],
    ];
    for (const [key, done, what] of steps) {
      await server.run(['send-keys', '-t', '=dash:', key]);
      await waitFor(done, what, 10_000);
    }
    expect((await recorded()).join('\n')).not.toMatch(/(^| )-/m);
  });
});
