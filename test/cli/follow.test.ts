// follow takes the ids the tool itself prints: a unique start of a session id,
// a tmux session name (its stamp), and --watch with a session id (that chain only).
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { cleanEnv } from '../helpers/hermetic';
import { startServer, type TestServer } from '../helpers/tmux-server';
import { readFile, writeFile } from 'node:fs/promises';
import { updateTask, type Task } from '../../src/tasks';
import { join } from 'node:path';
import { registryRows } from '../helpers/registry-rows';

const MIGRATE = '476fcfeb-0a1b-4c41-9d3c-7b0a1c2d3e4f';
const TWIN = '476fcfeb-ffff-4c41-9d3c-7b0a1c2d3e4f';
const REVIEW = '49a6ca67-1234-4c41-9d3c-7b0a1c2d3e4f';

let server: TestServer;
let fenv: FleetEnv;

async function sids(): Promise<string[]> {
  return (await registryRows(fenv.registry)).map((row) => String(row.sessionId));
}

async function agent(session: string, sid: string): Promise<void> {
  await server.newSession(session, [process.execPath, STAND_IN], { ...fenv.env, STAND_IN_SID: sid, STAND_IN_NO_STAMP: '1' });
  await waitFor(async () => (await sids()).includes(sid), `the row of ${sid}`);
  await server.run(['set-option', '-t', `=${session}:`, '@claude_session_id', sid]);
}

const follow = (...args: string[]) => runFleet(['follow', ...args], { env: fenv.env });

beforeAll(async () => {
  server = await startServer();
  fenv = await makeFleetEnv(server.name);
  await agent('op-migrate-db', MIGRATE);
  await agent('review-fix-login', REVIEW);
});

afterAll(async () => {
  await server?.kill();
  await fenv?.cleanup();
});

describe('follow <sid>', () => {
  it('a unique start of a session id, as the tool prints it (8 or 4 characters)', async () => {
    for (const prefix of ['476fcfeb-0a', '49a6ca67', '49a6']) {
      const r = await follow(prefix, '--json');
      expect(r.exitCode, `${prefix}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ base: prefix.startsWith('49') ? REVIEW : MIGRATE, hops: 0 });
    }
  });

  it('a tmux session name: its stamp, the name never cut', async () => {
    const r = await follow('op-migrate-db', '--json');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ base: MIGRATE, attached: MIGRATE });
    const none = await follow('op-nosuch-db');
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toMatch(/^"op-nosuch-db": no registry row holds this session id, none starts with it, no tmux session .* has this name, and no task has this slug$/m);
  });

  it('an ambiguous start: a usage error naming the candidates', async () => {
    await agent('op-twin', TWIN);
    const r = await follow('476fcfeb');
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(`tmux-fleet: follow: "476fcfeb" starts 2 session ids: ${MIGRATE}, ${TWIN}; give more of it`);
  });
});

describe('follow <task>', () => {
  it("a task slug: its Driver's chain (pending: the stamp of the session the spawn marked); an unknown one is said whole", async () => {
    await updateTask(fenv.home, 'fix-login', () => ({ slug: 'fix-login', driverSid: REVIEW }) as Task, { create: true });
    const r = await follow('fix-login', '--json');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ base: REVIEW, attached: REVIEW });
    // Pending: the session the spawn marked with the task's nonce, once it carries a stamp.
    const nonce = 'ab'.repeat(16);
    await server.run(['set-option', '-t', '=op-migrate-db:', '@spawn_nonce', nonce]);
    await updateTask(fenv.home, 'migrate-db', () => ({ slug: 'migrate-db', driverSid: '', driverPane: 'op-migrate-db', spawnNonce: nonce }) as Task, { create: true });
    expect(JSON.parse((await follow('migrate-db', '--json')).stdout)).toMatchObject({ base: MIGRATE });
    await server.newSession('op-booting', ['sleep', '86400']);
    await server.run(['set-option', '-t', '=op-booting:', '@spawn_nonce', nonce]);
    await updateTask(fenv.home, 'booting', () => ({ slug: 'booting', driverSid: '', driverPane: 'op-booting', spawnNonce: nonce }) as Task, { create: true });
    const booting = await follow('booting');
    expect(booting.exitCode).toBe(1);
    expect(booting.stderr.trim()).toBe('tmux-fleet: follow: task booting is pending: its Driver in tmux session op-booting has not stamped yet');
  });
});

describe('follow of an agent that parks nothing (Codex CLI, Gemini CLI)', () => {
  it.each(['codex', 'gemini'] as const)('%s: by slug, session id or session name, it says where the work is and what can be followed, exit 0', async (kind) => {
    const sid = kind === 'codex' ? '019a0000-0000-7000-8000-00000000c0de' : '9e9e9e9e-1111-4222-8333-444444444444';
    const session = `op-t${kind}`;
    await server.newSession(session, ['sleep', '86400']);
    const pid = Number((await server.run(['display-message', '-p', '-t', `=${session}:`, '#{pane_pid}'])).trim());
    const ticks = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[19];
    await server.run(['set-option', '-t', `=${session}:`, '@claude_session_id', sid]);
    await server.run(['set-option', '-t', `=${session}:`, '@fleet-stamp-agent', `${kind} ${pid} ${ticks}`]);
    await updateTask(fenv.home, `t${kind}`, () => ({ slug: `t${kind}`, driverSid: sid, driverPane: session, driverAgent: kind, driverPid: pid, driverProcStart: ticks }) as Task, { create: true });
    const name = kind === 'codex' ? 'Codex CLI' : 'Gemini CLI';
    for (const given of [`t${kind}`, sid, sid.slice(0, 8), session]) {
      const r = await follow(given);
      expect(r.exitCode, `${given}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stdout).not.toContain('no registry row');
      expect(r.stdout.trim()).toBe(`${sid.slice(0, 8)}: ${name} in tmux session ${session} (live); only Claude Code parks its work on a background job, so ${name}'s work stays there: nothing to follow`);
    }
    const j = await follow(`t${kind}`, '--json');
    expect(j.exitCode, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ base: sid, attached: sid, hops: 0, chain: [], agent: kind, session, liveness: 'live' });
  });
});

describe('follow with no stamp: the actual cause', () => {
  it('in a plain shell with the hook installed: no agent runs there (the hook is not blamed)', async () => {
    await writeFile(join(fenv.claudeDir, 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `'${FLEET_BIN}' stamp` }] }] } }));
    await server.newSession('plain', ['sleep', '86400']);
    const pane = (await server.run(['display-message', '-p', '-t', '=plain:', '#{pane_id}'])).trim();
    const r = await runFleet(['follow'], { env: { ...fenv.env, TMUX_PANE: pane } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).not.toMatch(/hook installed|hooks install/);
    expect(r.stderr.trim()).toMatch(/^tmux-fleet: follow: tmux session "plain" carries no stamp \(@claude_session_id\): no Claude Code, Codex CLI or Gemini CLI runs under its panes; /);
    const named = await follow('plain');
    expect(named.stderr.trim()).toMatch(/^tmux-fleet: follow: tmux session "plain" carries no stamp \(@claude_session_id\): no Claude Code, Codex CLI or Gemini CLI runs under its panes; /);
  });

  it('a Claude Code under the panes, unstamped: names it, so it can be followed', async () => {
    const sid = 'c8e8bf8b-3333-4c41-9d3c-7b0a1c2d3e4f';
    await server.newSession('unstamped', [process.execPath, STAND_IN], { ...fenv.env, STAND_IN_SID: sid, STAND_IN_NO_STAMP: '1' });
    await waitFor(async () => (await sids()).includes(sid), 'the row');
    const r = await follow('unstamped');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`carries no stamp \\(@claude_session_id\\): a Claude Code \\(session ${sid}\\) runs under its pane %\\d+, unstamped; `));
  });
});

describe('follow --watch <sid>', () => {
  it('is accepted, and reports only that chain', async () => {
    const child = execa(process.execPath, [FLEET_BIN, 'follow', '--watch', '49a6ca67'], {
      env: { ...cleanEnv(), ...fenv.env },
      extendEnv: false,
      reject: false,
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(() => out.includes('\n'), 'the first report');
    } finally {
      child.kill('SIGTERM');
    }
    // Everything it printed, read once it has exited: the first refresh prints every matching session at once,
    // here one line, the review session's.
    const r = await child;
    expect(r.stderr).toBe('');
    expect(String(r.stdout).trim().split('\n')).toEqual([expect.stringMatching(/^review-fix-login: 49a6ca67/)]);
  });
});
