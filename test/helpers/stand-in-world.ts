// A world of stand-in agents, shared by the tests of many folders (ownership,
// agents, actions, safety, status): a private tmux server, a temp fleet home,
// the stand-in agent as the spawned command, and task/registry helpers.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { procStartLstart } from '../../src/proc';
import { updateTask, type Task } from '../../src/tasks';
import { makeFleetEnv, runFleet, waitFor, type CliResult, type FleetEnv } from './env';
import { STAND_IN } from './paths';
import { sq, startServer, type TestServer } from './tmux-server';

export { sq };


export interface World {
  server: TestServer;
  fe: FleetEnv;
  children: ChildProcess[];
  fleet(args: string[], opts?: { env?: Record<string, string | undefined>; input?: string; cwd?: string }): Promise<CliResult>;
  /** The stand-in as an agent command, with extra environment. */
  standInCmd(env?: Record<string, string>): string;
  taskPath(slug: string): string;
  readTask(slug: string): Promise<Task & Record<string, unknown>>;
  writeTask(slug: string, task: Record<string, unknown>): Promise<void>;
  display(session: string, format: string): Promise<string>;
  /** A live process (sleep) and a registry row naming it under sid. */
  liveRow(sid: string, extra?: Record<string, unknown>): Promise<number>;
  /** A registry row for a pid that does not exist. */
  deadRow(sid: string): Promise<number>;
  waitOwner(slug: string): Promise<string>;
  /** A session as a spawn leaves it (op-<slug>, carrying a nonce) and the pending task naming it; returns the nonce. */
  pendingSession(slug: string, nonce?: string): Promise<string>;
  /** Sets the stamp of op-<slug>, as the agent's SessionStart hook would. */
  stamp(slug: string, sid: string): Promise<string>;
  close(): Promise<void>;
}

export async function makeWorld(): Promise<World> {
  const server = await startServer();
  const fe = await makeFleetEnv(server.name);
  const children: ChildProcess[] = [];
  const world: World = {
    server,
    fe,
    children,
    fleet: (args, opts = {}) => runFleet(args, { ...opts, env: { ...fe.env, ...opts.env } }),
    standInCmd(env = {}) {
      const vars = Object.entries(env).map(([k, v]) => `${k}=${sq(v)}`);
      return ['env', ...vars, sq(process.execPath), sq(STAND_IN)].join(' ');
    },
    taskPath: (slug) => join(fe.home, 'tasks', slug, 'task.json'),
    async readTask(slug) {
      return JSON.parse(await readFile(world.taskPath(slug), 'utf8'));
    },
    async writeTask(slug, task) {
      await updateTask(fe.home, slug, () => ({ slug, ...task }) as Task, { create: true });
    },
    async display(session, format) {
      return (await server.run(['display-message', '-p', '-t', `=${session}:`, format])).replace(/\n$/, '');
    },
    async liveRow(sid, extra = {}) {
      const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
      children.push(child);
      const pid = child.pid as number;
      await waitFor(() => procStartLstart(pid), 'sleep started');
      const row = { pid, sessionId: sid, kind: 'interactive', status: 'idle', procStart: procStartLstart(pid), updatedAt: Date.now(), ...extra };
      await writeFile(join(fe.registry, `${pid}.json`), JSON.stringify(row));
      return pid;
    },
    async deadRow(sid) {
      const pid = 4_000_000 + Math.floor(Math.random() * 100_000);
      await writeFile(join(fe.registry, `${pid}.json`), JSON.stringify({ pid, sessionId: sid, procStart: 'Thu Jan 1 00:00:00 1970' }));
      return pid;
    },
    async waitOwner(slug) {
      return waitFor(async () => {
        try {
          return (await world.readTask(slug)).driverSid || '';
        } catch {
          return '';
        }
      }, `owner of ${slug}`);
    },
    async pendingSession(slug, n = nonce()) {
      await server.newSession(`op-${slug}`);
      await server.run(['set-option', '-t', `=op-${slug}:`, '@spawn_nonce', n]);
      await world.writeTask(slug, { driverSid: '', driverPane: `op-${slug}`, spawnNonce: n });
      return n;
    },
    stamp: (slug, sid) => server.run(['set-option', '-t', `=op-${slug}:`, '@claude_session_id', sid]),
    async close() {
      for (const c of children) c.kill('SIGKILL');
      await server.kill();
      await fe.cleanup();
    },
  };
  return world;
}

/** A spawn nonce: 32 lowercase hex characters. */
export const nonce = () => randomBytes(16).toString('hex');

export function json<T = Record<string, unknown>>(r: CliResult): T {
  return JSON.parse(r.stdout) as T;
}
