// The world of a real Codex CLI or Gemini CLI: a throw-away HOME it starts in
// offline (Codex: a model provider at an unreachable loopback address, the
// work directory trusted, no app-server daemon; Gemini: an API key of no
// account, folder trust off), a private tmux server whose environment carries
// it, and the helper. The plugin (and with it the supervisor) is loaded only
// when a scenario asks, so that what the hook does alone can be seen first.
// close() ends everything: the agents, Codex's daemon, the server, and any
// process still running with this HOME.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { runFleet, sleep, waitFor, type CliResult } from '../helpers/env';
import { ROOT } from '../helpers/paths';
import { removeSocketFile } from '../helpers/tmux-server';
import { ticksAfter } from '../helpers/supervisor';
import { runningSupervisor } from '../../src/nudge';
import { signal, userShellEnv } from '../helpers/tier';
import { pidExists } from '../../src/proc';
import { processesWithHome, TIER_SCRIPT, until } from '../claude/world';
import { startModelServer, type ModelServer } from '../fixtures/model-server.mjs';
import { agentBinary, agentsCacheDir, OTHER_AGENTS } from './install.mjs';

export type OtherAgent = 'codex' | 'gemini';

export interface AgentWorld {
  agent: OtherAgent;
  version: string;
  binary: string;
  home: string;
  /** The trusted work directory every agent starts in. */
  work: string;
  socket: string;
  /** The scripted model server the agent's turns go to (the Responses API for Codex, the Gemini API for Gemini). */
  model: ModelServer;
  tmux(args: string[]): Promise<string>;
  fleet(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  /** `tmux-fleet spawn <slug>` of the agent in the work directory; returns the session name. */
  spawn(slug: string, extra?: string[]): Promise<string>;
  option(session: string, name: string): Promise<string>;
  /**
   * Waits until a session's option passes `test`; a timeout names the last
   * value, the pane's title and the supervisor's last log lines (a rare
   * failure of the real tier is told, not guessed at).
   */
  optionUntil(session: string, name: string, test: (value: string) => boolean, timeoutMs: number): Promise<string>;
  stamp(session: string): Promise<string>;
  screen(session: string): Promise<string>;
  /** Types text, waits until the screen shows it, then presses Enter. */
  typeLine(session: string, text: string): Promise<void>;
  readTask(slug: string): Promise<Record<string, any>>;
  /** The last hook signal of a session id (<fleet home>/signals/<sid>.json), or null. */
  signal(sid: string): Promise<{ at: number; state: string; needs: string | null } | null>;
  /**
   * Loads the plugin as a user does (run-shell tmux-plugin.tmux): options, keys, the supervisor,
   * which logs each tick (TMUX_FLEET_DEBUG=1 in the server's environment), for ticks().
   */
  loadPlugin(): Promise<void>;
  /** Waits for `count` ticks of the supervisor that begin after the call (test/helpers/supervisor.ts, ticksAfter). */
  ticks(count?: number): Promise<void>;
  /** The agent process under a session's pane (Codex's native binary, Gemini's relaunched child), or 0. */
  agentPid(session: string): number;
  processes(): { pid: number; comm: string }[];
  /**
   * A restart: the tmux server killed with every process of this HOME (the
   * agents, Codex's daemon), then a new server started as the first one was
   * (its `keeper` session, the same environment), without the plugin.
   */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

export const AGENTS_CACHE = process.env.TMUX_FLEET_AGENTS_CACHE || agentsCacheDir();

export function pinned(agent: OtherAgent): { version: string; binary: string } {
  const a = OTHER_AGENTS.find((x) => x.agent === agent);
  if (!a) throw new Error(`no pinned version of ${agent}`);
  return { version: a.version, binary: agentBinary(AGENTS_CACHE, a) };
}


/** The processes under a pid (breadth first), from /proc. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

function environ(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

export async function makeAgentWorld(agent: OtherAgent): Promise<AgentWorld> {
  const { version, binary } = pinned(agent);
  if (!existsSync(binary)) throw new Error(`${agent} ${version} is not in the cache (${binary}); run the tier with npm run test:agents`);
  const homesRoot = process.env.TMUX_FLEET_TIER_HOMES || tmpdir();
  const home = await mkdtemp(join(homesRoot, `home-${agent}-${version}-`));
  const work = join(home, 'work');
  await mkdir(work, { recursive: true });
  const model = await startModelServer({ script: TIER_SCRIPT });
  const agentEnv: Record<string, string> = {
    ...userShellEnv(),
    HOME: home,
    TMUX_FLEET_HOME: join(home, 'fleet'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  if (agent === 'codex') {
    await mkdir(join(home, '.codex'), { recursive: true });
    await writeFile(
      join(home, '.codex', 'config.toml'),
      [
        '# The real tier: the scripted model server, asking before an escalated command, the work directory trusted, no app-server daemon.',
        'model_provider = "loopback"',
        'model = "gpt-5"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        '',
        '[model_providers.loopback]',
        'name = "loopback"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        '',
        `[projects.${JSON.stringify(work)}]`,
        'trust_level = "trusted"',
        '',
        '[features]',
        'daemon_auto_start = false',
        '',
      ].join('\n'),
    );
  } else {
    agentEnv.GEMINI_API_KEY = `fleet-test-${randomBytes(8).toString('hex')}`;
    agentEnv.GOOGLE_GEMINI_BASE_URL = model.url;
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(join(home, '.gemini', 'settings.json'), `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } } }, null, 2)}\n`);
  }
  const socket = `fleet-test-${randomBytes(6).toString('hex')}`;
  const tmux = async (args: string[]) => (await execa('tmux', ['-L', socket, ...args], { env: agentEnv, extendEnv: false })).stdout;
  await execa('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', '-x', '200', '-y', '50', 'sleep 86400'], { env: agentEnv, extendEnv: false });
  let serverPid = Number(await tmux(['display-message', '-p', '#{pid}']));
  const fleetEnv = { ...agentEnv, TMUX_FLEET_SOCKET: socket, TMUX: undefined, TMUX_PANE: undefined };
  const world: AgentWorld = {
    agent,
    version,
    binary,
    home,
    work,
    socket,
    model,
    tmux,
    fleet: (args, env = {}) => runFleet(args, { env: { ...fleetEnv, ...env }, cwd: work, timeoutMs: 60_000 }),
    async spawn(slug, extra = []) {
      const r = await world.fleet(['spawn', slug, '--cmd', binary, '--cwd', work, ...extra]);
      if (r.exitCode !== 0) throw new Error(`spawn ${slug}: ${r.stderr}`);
      return `op-${slug}`;
    },
    async option(session, name) {
      // As the session sees it: its own, else the global one (the fleet's attention is global).
      const r = await execa('tmux', ['-L', socket, 'show-options', '-qvA', '-t', `=${session}:`, name], { env: agentEnv, extendEnv: false, reject: false });
      return String(r.stdout);
    },
    async optionUntil(session, name, test, timeoutMs) {
      let last = '';
      const passed = await waitFor(async () => test((last = await world.option(session, name))), name, timeoutMs, 250).catch(() => false);
      if (passed) return last;
      const title = await tmux(['display-message', '-p', '-t', `=${session}:`, '#{pane_title}']).catch(() => '?');
      const log = await readFile(join(home, 'fleet', 'log'), 'utf8').catch(() => '');
      const tail = log.trimEnd().split('\n').slice(-12).join('\n');
      throw new Error(`${session}: ${name} is ${JSON.stringify(last)} after ${timeoutMs} ms; pane title ${JSON.stringify(title.trim())}; the log ends:\n${tail}`);
    },
    stamp: (session) => world.option(session, '@claude_session_id'),
    screen: (session) => tmux(['capture-pane', '-p', '-t', `=${session}:`]),
    async typeLine(session, text) {
      for (let attempt = 0; ; attempt++) {
        await tmux(['send-keys', '-t', `=${session}:`, '-l', text]);
        const shown = await waitFor(async () => (await world.screen(session)).includes(text), `"${text}" typed`, 10_000, 100).catch(() => false);
        if (shown) break;
        if (attempt === 3) throw new Error(`${session} never showed "${text}": ${await world.screen(session)}`);
        await tmux(['send-keys', '-t', `=${session}:`, 'C-u']);
      }
      await sleep(700);
      await tmux(['send-keys', '-t', `=${session}:`, 'Enter']);
    },
    async readTask(slug) {
      return JSON.parse(await readFile(join(home, 'fleet', 'tasks', slug, 'task.json'), 'utf8'));
    },
    async signal(sid) {
      return JSON.parse(await readFile(join(home, 'fleet', 'signals', `${sid}.json`), 'utf8').catch(() => 'null'));
    },
    async loadPlugin() {
      await tmux(['set-environment', '-g', 'TMUX_FLEET_DEBUG', '1']);
      await tmux(['run-shell', join(ROOT, 'tmux-plugin.tmux')]);
      await waitFor(() => existsSync(join(home, 'fleet', 'run')) && readdirSync(join(home, 'fleet', 'run')).some((n) => n.startsWith('supervisor-')), 'the supervisor', 60_000, 200);
    },
    async ticks(count) {
      const socketPath = (await tmux(['display-message', '-p', '#{socket_path}'])).trim();
      const pid = runningSupervisor(join(home, 'fleet'), socketPath);
      if (pid === null) throw new Error(`no supervisor runs for ${socketPath}`);
      await ticksAfter(join(home, 'fleet'), pid, count);
    },
    agentPid(session) {
      const panePid = Number(execaSyncish(socket, agentEnv, ['display-message', '-p', '-t', `=${session}:`, '#{pane_pid}']));
      if (!panePid) return 0;
      for (const pid of descendants(panePid)) {
        const argv = cmdline(pid);
        if (agent === 'codex' && argv[0]?.endsWith('/bin/codex') && !argv.includes('app-server')) return pid;
        if (agent === 'gemini' && environ(pid).includes('GEMINI_CLI_NO_RELAUNCH=true') && argv.some((a) => a.endsWith('/gemini'))) return pid;
      }
      return 0;
    },
    processes: () => processesWithHome(home),
    async restartServer() {
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
      for (const p of world.processes()) signal(p.pid, 'SIGKILL');
      await waitFor(() => world.processes().length === 0 && !pidExists(serverPid), `no process with HOME ${home}`, 10_000, 100);
      await removeSocketFile(socket);
      await execa('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', '-x', '200', '-y', '50', 'sleep 86400'], { env: agentEnv, extendEnv: false });
      serverPid = Number(await tmux(['display-message', '-p', '#{pid}']));
    },
    async close() {
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
      await model.close();
      await waitFor(() => !pidExists(serverPid), 'tmux server gone', 5000).catch(() => signal(serverPid, 'SIGKILL'));
      await removeSocketFile(socket);
      // Agents outlive their server (Gemini CLI ignores the hang-up; Codex's daemon runs on): ended here.
      for (const p of world.processes()) signal(p.pid, 'SIGTERM');
      const quiet = await waitFor(() => world.processes().length === 0, `no process with HOME ${home}`, 10_000, 250).catch(() => false);
      if (quiet === false) for (const p of world.processes()) signal(p.pid, 'SIGKILL');
      await waitFor(() => world.processes().length === 0, `no process with HOME ${home}`, 10_000, 250).catch(() => undefined);
      await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  return world;
}

/** One tmux read, synchronously (for agentPid, called inside polls). */
function execaSyncish(socket: string, env: Record<string, string>, args: string[]): string {
  try {
    return execFileSync('tmux', ['-L', socket, ...args], { env, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}



/** The thread locks under <home>/.codex/thread-writer-locks that a process holds open, by session id. */
export function codexLocksOf(pid: number): string[] {
  const out: string[] = [];
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /\/thread-writer-locks\/([0-9a-f-]{36})\.lock$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) out.push(m[1] as string);
      } catch {
        /* closed */
      }
    }
  } catch {
    /* gone */
  }
  return out.sort();
}

/**
 * Codex's own answer for the hooks of a directory: its app-server's
 * hooks/list (JSON-RPC over stdio), as Codex 0.171.0 speaks it.
 */
export async function codexHooksList(world: AgentWorld): Promise<{ key: string; currentHash: string; trustStatus: string; command: string }[]> {
  const child = spawn(world.binary, ['app-server'], { cwd: world.work, env: { ...userShellEnv(), HOME: world.home }, stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    return await new Promise((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('codex app-server did not answer hooks/list')), 60_000);
      const send = (o: unknown) => child.stdin.write(`${JSON.stringify(o)}\n`);
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          let msg: { id?: number; result?: { data?: { hooks?: any[] }[] }; error?: unknown };
          try {
            msg = JSON.parse(line);
          } catch {
            continue;
          }
          if (msg.id === 0) {
            send({ method: 'initialized' });
            send({ id: 1, method: 'hooks/list', params: {} });
          } else if (msg.id === 1) {
            clearTimeout(timer);
            if (msg.error) reject(new Error(`hooks/list: ${JSON.stringify(msg.error)}`));
            else resolve((msg.result?.data ?? []).flatMap((d) => d.hooks ?? []));
          }
        }
      });
      send({ id: 0, method: 'initialize', params: { clientInfo: { name: 'tmux-fleet-test', version: '0' } } });
    });
  } finally {
    child.kill('SIGKILL');
  }
}

export { until };
