// Concurrent `spawn <slug> --replace` of one slug: each kills the session,
// creates its own with its nonce and records that nonce. Unserialized, one
// spawn could record its nonce after another had replaced its session: all
// exit 0, and the live session's @spawn_nonce differs from the task's
// spawnNonce for good (`? mix cannot tell`). Spawns of one slug hold the
// task's lock from the session's creation to the record's write. Real tmux
// server, several rounds; the agent is a plain `sleep` (it never stamps, so
// the nonce stays in the record to compare). In half the rounds the test holds
// the task's lock for a moment while the spawns start (as a sweep or a stamp
// writing the task would): the writes then come in any order, which is what
// makes the race show in every run rather than in some.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDirLock } from '../../src/tasks/lock';
import { makeFleetEnv, runFleet, sleep, type CliResult, type FleetEnv } from '../helpers/env';
import { startServer, type TestServer } from '../helpers/tmux-server';

const ROUNDS = 6;
const SPAWNS = 3;

let server: TestServer;
let fe: FleetEnv;

beforeAll(async () => {
  server = await startServer();
  fe = await makeFleetEnv(server.name);
});
afterAll(async () => {
  await server?.kill();
  await fe?.cleanup();
});

describe(`${SPAWNS} concurrent spawn --replace of one slug, ${ROUNDS} rounds`, () => {
  it('the live session always carries the nonce the task records; no session is left over', async () => {
    const mismatches: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const spawns = () =>
        Promise.all(
          Array.from({ length: SPAWNS }, () => runFleet(['spawn', 'mix', '--replace', '--cmd', 'sleep 600', '--json'], { env: fe.env, cwd: fe.root, timeoutMs: 60_000 })),
        );
      let results: CliResult[];
      if (round % 2 === 0) {
        let running: Promise<CliResult[]> | undefined;
        await withDirLock(join(fe.home, 'tasks', 'mix'), async () => {
          running = spawns();
          await sleep(1500);
        });
        results = await (running as Promise<CliResult[]>);
      } else results = await spawns();
      // Serialized, each spawn replaces the one before it and lands (none fails on a session the other killed or made).
      expect(results.map((r) => [r.exitCode, r.stderr]), `round ${round}`).toEqual(results.map(() => [0, '']));
      const task = JSON.parse(await readFile(join(fe.home, 'tasks', 'mix', 'task.json'), 'utf8')) as { spawnNonce?: string; driverPane?: string };
      const live = (await server.run(['show-options', '-qv', '-t', '=op-mix:', '@spawn_nonce'])).trim();
      if (live !== task.spawnNonce) mismatches.push(`round ${round}: session ${live}, task ${task.spawnNonce}`);
      const verdict = await runFleet(['owner', 'mix', '--as', 'abcd0000-0000-4000-8000-000000000001'], { env: fe.env });
      // Pending and proven by its nonce, booting (no stamp yet): 5 "booting", never "nonce mismatch".
      expect(verdict.stdout, `round ${round}`).not.toMatch(/nonce/i);
      const sessions = (await server.run(['list-sessions', '-F', '#{session_name}'])).trim().split('\n').sort();
      expect(sessions, `round ${round}`).toEqual(['keeper', 'op-mix']);
    }
    expect(mismatches).toEqual([]);
  }, 300_000);

  it('fresh slugs: every spawn lands, none fails on the task directory a concurrent one made', async () => {
    // Each spawn of a new slug makes its directory; the three of one slug can reach that at the same moment.
    const slugs = ['fresh-a', 'fresh-b', 'fresh-c', 'fresh-d', 'fresh-e', 'fresh-f'];
    const results = await Promise.all(
      slugs.flatMap((slug) =>
        Array.from({ length: SPAWNS }, () => runFleet(['spawn', slug, '--replace', '--cmd', 'sleep 600', '--json'], { env: fe.env, cwd: fe.root, timeoutMs: 60_000 })),
      ),
    );
    expect(results.map((r) => [r.exitCode, r.stderr])).toEqual(results.map(() => [0, '']));
    for (const slug of slugs) {
      const task = JSON.parse(await readFile(join(fe.home, 'tasks', slug, 'task.json'), 'utf8')) as { spawnNonce?: string };
      const live = (await server.run(['show-options', '-qv', '-t', `=op-${slug}:`, '@spawn_nonce'])).trim();
      expect(live, slug).toBe(task.spawnNonce);
    }
  }, 300_000);
});
