// follow takes the ids the tool itself prints: a unique start of a session id,
// a tmux session name (its stamp), and --watch with a session id (that chain only).
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFleetEnv, runFleet, waitFor, type FleetEnv } from '../helpers/env';
import { FLEET_BIN, STAND_IN } from '../helpers/paths';
import { cleanEnv } from '../helpers/hermetic';
import { startServer, type TestServer } from '../helpers/tmux-server';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const MIGRATE = '476fcfeb-0a1b-4c41-9d3c-7b0a1c2d3e4f';
const TWIN = '476fcfeb-ffff-4c41-9d3c-7b0a1c2d3e4f';
const REVIEW = '49a6ca67-1234-4c41-9d3c-7b0a1c2d3e4f';

let server: TestServer;
let fenv: FleetEnv;

async function sids(): Promise<string[]> {
  const out: string[] = [];
  for (const n of (await readdir(fenv.registry)).filter((x) => /^\d+\.json$/.test(x))) {
    try {
      out.push(String((JSON.parse(await readFile(join(fenv.registry, n), 'utf8')) as { sessionId: unknown }).sessionId));
    } catch {
      /* mid-write */
    }
  }
  return out;
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
    expect(none.stdout).toContain('"op-nosuch-db": no registry row holds this session id, none starts with it, and no tmux session');
  });

  it('an ambiguous start: a usage error naming the candidates', async () => {
    await agent('op-twin', TWIN);
    const r = await follow('476fcfeb');
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(`tmux-fleet: follow: "476fcfeb" starts 2 session ids: ${MIGRATE}, ${TWIN}; give more of it`);
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
      // The first refresh prints every matching session at once: one line, the review session's.
      await new Promise((r) => setTimeout(r, 300));
      expect(out.trim().split('\n')).toEqual([expect.stringMatching(/^review-fix-login: 49a6ca67/)]);
    } finally {
      child.kill('SIGTERM');
      const r = await child;
      expect(r.stderr).toBe('');
    }
  });
});
