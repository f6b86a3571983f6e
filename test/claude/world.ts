// The real agent's world: a throw-away HOME that Claude Code starts in offline
// (onboarding done, the API key approved, the work directory trusted, default
// permission mode), a scripted model server it reaches on loopback (real
// turns: test/fixtures/model-server.mjs), a private tmux server whose
// environment carries it, the plugin loaded as a user loads it (run-shell
// tmux-plugin.tmux: defaults, keys, supervisor), and `hooks install`.
// Everything of it is ended by close(): Claude Code's daemon (it outlives the
// tmux server), the server, the model server, and any process still running
// with this HOME.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { runFleet, sleep, waitFor, type CliResult } from '../helpers/env';
import { ROOT } from '../helpers/paths';
import { removeSocketFile } from '../helpers/tmux-server';
import { signal, userShellEnv } from '../helpers/tier';
import { pidExists } from '../../src/proc';
import { startModelServer, type ModelServer, type ScriptRule, type TrafficEntry } from '../fixtures/model-server.mjs';

export interface Row {
  pid: number;
  sessionId: string;
  kind?: string;
  status?: string;
  jobId?: string;
  parkedJobId?: string;
  spare?: boolean;
  procStart?: string;
  pidDomain?: string;
  tmux?: string;
  [key: string]: unknown;
}

export interface ClaudeWorld {
  version: string;
  binary: string;
  home: string;
  /** The trusted work directory every agent starts in. */
  work: string;
  registry: string;
  socket: string;
  tmux(args: string[]): Promise<string>;
  fleet(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  /** Runs the claude binary with the world's HOME (agents --json, daemon stop). */
  claude(args: string[]): Promise<CliResult>;
  /** `tmux-fleet spawn <slug>` in the work directory; waits for the real hook's stamp and the row. */
  spawn(slug: string): Promise<{ session: string; sid: string; row: Row }>;
  option(session: string, name: string): Promise<string>;
  stamp(session: string): Promise<string>;
  /** The screen of a session's active pane, or of a pane (`%N`). */
  screen(session: string): Promise<string>;
  /** Waits for the agent's prompt box (in a session, or a pane `%N`). */
  waitForPrompt(session: string): Promise<void>;
  /** Types text, waits until the prompt shows it, then presses Enter (an Enter sent too early is lost). */
  typeLine(session: string, text: string): Promise<void>;
  rows(): Row[];
  rowOf(sid: string): Row | undefined;
  /** A job's state file (<HOME>/.claude/jobs/<id>/state.json) as Claude Code wrote it, or undefined. */
  jobState(jobId: string): Record<string, unknown> | undefined;
  /** The scripted model server the agent's turns go to. */
  model: ModelServer;
  /** A tmux client attached to `session` (in a pane of an outer private server), to see toasts and to be switched. */
  attachClient(session: string): Promise<WorldClient>;
  readTask(slug: string): Promise<Record<string, any>>;
  /** The notifications the notify command got so far (`<event> <text>` lines). */
  notices(): string[];
  /** Processes running (not zombies) with this world's HOME. */
  processes(): { pid: number; comm: string }[];
  /**
   * A restart: the tmux server killed with every process of this HOME (the
   * agents, Claude Code's daemon and its jobs), then a new server started as
   * the first one was (its `keeper` session, the same environment and global
   * options), the plugin not loaded yet.
   */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

export interface WorldClient {
  /** The client's name on the world's server (for switch-client -c, attention --jump --client). */
  name: string;
  /** The session the client shows now. */
  session(): Promise<string>;
  /** The client's screen; its last line is the status line, where toasts show. */
  screen(): Promise<string>;
  kill(): Promise<void>;
}

/**
 * What the model server answers, keyed on the prompt's words (a turn is
 * typed with one of these in it):
 * - `haiku`: text after 2.5 s (busy, then idle);
 * - `list the root`: a Bash tool call (`ls -la /`), a permission prompt in default mode;
 * - `park me`: the tab's request held (so Left parks mid-turn), the job's at once: the tool call;
 * - `park for restore`: the same, for the restore scenario (each rule holds only its first request);
 * - `api error`: the tab's request held, then HTTP 500 for the job (it gives up after one retry);
 * - `hold`: held for two minutes (an agent at work, as offline);
 * anything else: a short text.
 */
export const TIER_SCRIPT: ScriptRule[] = [
  { match: 'haiku', delayMs: 2500, text: 'Panes split the night' },
  { match: 'park me', delayMs: 120_000, delayTimes: 1, tool: { name: 'Bash', input: { command: 'ls -la /', description: 'List the root directory' } } },
  { match: 'park for restore', delayMs: 120_000, delayTimes: 1, tool: { name: 'Bash', input: { command: 'ls -la /', description: 'List the root directory' } } },
  { match: 'api error', delayMs: 120_000, delayTimes: 1, error: { status: 500, type: 'api_error', message: 'scripted failure' } },
  { match: 'list the root', tool: { name: 'Bash', input: { command: 'ls -la /', description: 'List the root directory' } }, after: 'The root holds the usual directories.' },
  { match: 'hold', delayMs: 120_000, text: 'held' },
];

export const CLAUDE_CACHE = process.env.TMUX_FLEET_CLAUDE_CACHE ?? '';

export function claudeBinary(version: string): string {
  return join(CLAUDE_CACHE, version, 'claude');
}


export async function makeClaudeWorld(version: string): Promise<ClaudeWorld> {
  const binary = claudeBinary(version);
  if (!existsSync(binary)) throw new Error(`Claude Code ${version} is not in the cache (${binary}); run the tier with npm run test:agents`);
  const homesRoot = process.env.TMUX_FLEET_TIER_HOMES || tmpdir();
  const home = await mkdtemp(join(homesRoot, `home-${version}-`));
  const work = join(home, 'work');
  const registry = join(home, '.claude', 'sessions');
  await mkdir(work, { recursive: true });
  await mkdir(join(home, '.claude'), { recursive: true });
  const model = await startModelServer({ script: TIER_SCRIPT });
  const apiKey = `sk-ant-api03-${randomBytes(30).toString('hex')}`;
  await writeFile(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
      projects: { [work]: { hasTrustDialogAccepted: true } },
      // 2.1.333 through a gateway asks once whether auto mode should be the default.
      hasSeenAutoDefaultNudge: true,
    }),
  );
  // Default permission mode (2.1.333 defaults to auto mode): a Bash call is a real permission prompt.
  // The model server in the settings' env too: background jobs of 2.1.197 do not inherit it from the tab.
  const modelEnv = { ANTHROPIC_BASE_URL: model.url, CLAUDE_CODE_MAX_RETRIES: '1' };
  await writeFile(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' }, env: modelEnv }, null, 2));
  const socket = `fleet-test-${randomBytes(6).toString('hex')}`;
  const agentEnv: Record<string, string> = {
    ...userShellEnv(),
    HOME: home,
    TMUX_FLEET_HOME: join(home, 'fleet'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    ANTHROPIC_API_KEY: apiKey,
    ...modelEnv,
    DISABLE_AUTOUPDATER: '1',
    // TMUX_FLEET_CLAUDE_KEEP=1: the supervisor logs every tick, and close() leaves the HOME to read.
    ...(process.env.TMUX_FLEET_CLAUDE_KEEP === '1' ? { TMUX_FLEET_DEBUG: '1' } : {}),
  };
  const tmux = async (args: string[]) => (await execa('tmux', ['-L', socket, ...args], { env: agentEnv, extendEnv: false })).stdout;
  // The server's global environment is the one its panes, hooks and the supervisor get.
  await execa('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', '-x', '200', '-y', '50', 'sleep 86400'], {
    env: agentEnv,
    extendEnv: false,
  });
  let serverPid = Number(await tmux(['display-message', '-p', '#{pid}']));
  const fleetEnv = { ...agentEnv, TMUX_FLEET_SOCKET: socket, TMUX: undefined, TMUX_PANE: undefined, CLAUDE_CONFIG_DIR: undefined, TMUX_FLEET_REGISTRY: undefined };
  const outers: string[] = [];
  const world: ClaudeWorld = {
    version,
    binary,
    home,
    work,
    registry,
    socket,
    tmux,
    model,
    fleet: (args, env = {}) => runFleet(args, { env: { ...fleetEnv, ...env }, cwd: work }),
    async claude(args) {
      const r = await execa(binary, args, { env: agentEnv, extendEnv: false, cwd: work, reject: false, timeout: 60_000, input: '' });
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    async spawn(slug) {
      const session = `op-${slug}`;
      const r = await world.fleet(['spawn', slug, '--cwd', work]);
      if (r.exitCode !== 0) throw new Error(`spawn ${slug}: ${r.stderr}`);
      // Start-up takes seconds (tens on a loaded machine).
      const sid = await waitFor(() => world.stamp(session), `the SessionStart hook's stamp on ${session}`, 120_000, 200);
      const row = await until(() => world.rowOf(sid), `the registry row of ${sid}`, 60_000, 200);
      return { session, sid, row };
    },
    async option(session, name) {
      // As the session sees it: its own, else the global one (the fleet's attention is global).
      const r = await execa('tmux', ['-L', socket, 'show-options', '-qvA', '-t', `=${session}:`, name], { env: agentEnv, extendEnv: false, reject: false });
      return String(r.stdout);
    },
    stamp: (session) => world.option(session, '@claude_session_id'),
    screen: (session) => tmux(['capture-pane', '-p', '-t', paneTarget(session)]),
    async waitForPrompt(session) {
      // The input box: a prompt character between two rules.
      await waitFor(async () => /─{20,}\n\s*[❯>]/.test(await world.screen(session)), `the prompt of ${session}`, 120_000, 250);
    },
    async typeLine(session, text) {
      await world.waitForPrompt(session);
      for (let attempt = 0; ; attempt++) {
        await tmux(['send-keys', '-t', paneTarget(session), '-l', text]);
        const shown = await waitFor(async () => (await world.screen(session)).includes(text), `"${text}" in the prompt`, 10_000, 100).catch(() => false);
        if (shown) break;
        if (attempt === 3) throw new Error(`${session} never showed "${text}": ${await world.screen(session)}`);
        await tmux(['send-keys', '-t', paneTarget(session), 'C-u']);
      }
      await sleep(500);
      await tmux(['send-keys', '-t', paneTarget(session), 'Enter']);
    },
    rows() {
      const out: Row[] = [];
      let names: string[] = [];
      try {
        names = readdirSync(registry).filter((n) => /^\d+\.json$/.test(n));
      } catch {
        return out;
      }
      for (const name of names) {
        try {
          out.push(JSON.parse(readFileSync(join(registry, name), 'utf8')) as Row);
        } catch {
          /* caught mid-write or removed: the next poll sees it */
        }
      }
      return out;
    },
    rowOf: (sid) => world.rows().find((r) => r.sessionId === sid),
    jobState(jobId) {
      try {
        return JSON.parse(readFileSync(join(home, '.claude', 'jobs', jobId, 'state.json'), 'utf8')) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    },
    async attachClient(session) {
      const outer = `fleet-test-outer-${randomBytes(6).toString('hex')}`;
      outers.push(outer);
      const before = new Set((await tmux(['list-clients', '-F', '#{client_name}'])).split('\n').filter(Boolean));
      await execa('tmux', ['-L', outer, '-f', '/dev/null', 'new-session', '-d', '-s', 'view', '-x', '200', '-y', '14', `env -u TMUX tmux -L ${socket} attach-session -t '=${session}:'`], {
        env: agentEnv,
        extendEnv: false,
      });
      await execa('tmux', ['-L', outer, 'set-option', '-t', '=view:', 'status', 'off'], { env: agentEnv, extendEnv: false });
      const name = await until(async () => (await tmux(['list-clients', '-F', '#{client_name}'])).split('\n').find((c) => c && !before.has(c)), `a client attached to ${session}`, 20_000, 100);
      return {
        name,
        session: async () => (await tmux(['display-message', '-p', '-c', name, '#{session_name}'])).trim(),
        screen: async () => (await execa('tmux', ['-L', outer, 'capture-pane', '-p', '-t', '=view:'], { env: agentEnv, extendEnv: false })).stdout,
        async kill() {
          await execa('tmux', ['-L', outer, 'kill-server'], { reject: false });
          await removeSocketFile(outer);
        },
      };
    },
    async readTask(slug) {
      return JSON.parse(await readFile(join(home, 'fleet', 'tasks', slug, 'task.json'), 'utf8'));
    },
    processes: () => processesWithHome(home),
    notices() {
      try {
        return readFileSync(join(home, 'notices'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    async restartServer() {
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
      // As a power cut leaves them: every process killed at once, nothing told to stop first.
      for (const p of world.processes()) signal(p.pid, 'SIGKILL');
      await waitFor(
        () => {
          for (const p of world.processes()) signal(p.pid, 'SIGKILL');
          return world.processes().length === 0 && !pidExists(serverPid);
        },
        `no process with HOME ${home}`,
        20_000,
        100,
      );
      await removeSocketFile(socket);
      await execa('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', '-x', '200', '-y', '50', 'sleep 86400'], { env: agentEnv, extendEnv: false });
      serverPid = Number(await tmux(['display-message', '-p', '#{pid}']));
      await setGlobals();
    },
    async close() {
      for (const outer of outers.splice(0)) {
        await execa('tmux', ['-L', outer, 'kill-server'], { reject: false });
        await removeSocketFile(outer);
      }
      // Claude Code's daemon and its spares outlive the tmux server: its own stop first.
      await world.claude(['daemon', 'stop', '--any']).catch(() => undefined);
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
      await model.close();
      const serverGone = await waitFor(() => !pidExists(serverPid), 'tmux server gone', 5000).catch(() => false);
      if (serverGone === false) signal(serverPid, 'SIGKILL');
      await removeSocketFile(socket);
      // bg-pty-host processes leave a moment after the daemon; anything still here after that is killed.
      const quiet = await waitFor(() => world.processes().length === 0, `no process with HOME ${home}`, 30_000, 250).catch(() => false);
      if (quiet === false) for (const p of world.processes()) signal(p.pid, 'SIGKILL');
      if (process.env.TMUX_FLEET_CLAUDE_KEEP === '1') console.log(`agents tier: kept ${home}`);
      else await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  /** The user's configuration of the server, before the plugin loads. */
  async function setGlobals(): Promise<void> {
    await tmux(['set-option', '-g', '@fleet-agent-cmd', binary]);
    // The status line a user puts the tokens in, before the plugin rewrites them; toasts stay long enough to be read.
    await tmux(['set-option', '-g', 'status-left', '[#{fleet_owner}][#{fleet_hop}][#{fleet_agent}][#{fleet_attention}] ']);
    await tmux(['set-option', '-g', 'status-left-length', '150']);
    await tmux(['set-option', '-g', 'status-right', '']);
    await tmux(['set-option', '-g', '@fleet-message-time', '8000']);
    // Notifications also through a command (docs/notify.md): each one a line in <HOME>/notices.
    await tmux(['set-option', '-g', '@fleet-notify', 'toast terminal command']);
    await tmux(['set-option', '-g', '@fleet-notify-command', `printf '%s %s\\n' "$FLEET_EVENT" "$FLEET_TEXT" >> '${join(home, 'notices')}'`]);
  }
  try {
    await setGlobals();
    await tmux(['run-shell', join(ROOT, 'tmux-plugin.tmux')]);
    const hooks = await world.fleet(['hooks', 'install']);
    if (hooks.exitCode !== 0) throw new Error(`hooks install: ${hooks.stderr}`);
  } catch (err) {
    await world.close();
    throw err;
  }
  return world;
}

/** A tmux target: a pane id (`%N`) as it is, a session name exactly (`=<name>:`). */
const paneTarget = (sessionOrPane: string) => (sessionOrPane.startsWith('%') ? sessionOrPane : `=${sessionOrPane}:`);



/** Running processes (zombies left out: they are gone) whose environment has HOME=home, with their command lines. */
export function processesWithHome(home: string): { pid: number; comm: string; args?: string }[] {
  const found: { pid: number; comm: string; args?: string }[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.charAt(stat.lastIndexOf(')') + 2);
      if (state === 'Z' || state === 'X') continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (env.includes(`HOME=${home}`)) {
        const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160);
        found.push({ pid: Number(name), comm: readFileSync(`/proc/${name}/comm`, 'utf8').trim(), args });
      }
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** Liveness as tmux-fleet decides it, for one session id: the first row of `follow <sid> --json`. */
export async function livenessOf(world: ClaudeWorld, sid: string): Promise<{ pid: number; liveness: string }> {
  const r = await world.fleet(['follow', sid, '--json']);
  if (r.exitCode !== 0) throw new Error(`follow ${sid}: ${r.stderr}`);
  const chain = (JSON.parse(r.stdout) as { chain: { pid: number; alive: boolean; liveness?: string }[] }).chain;
  const first = chain[0];
  if (!first) return { pid: 0, liveness: 'no row' };
  return { pid: first.pid, liveness: first.liveness ?? (first.alive ? 'live' : 'gone') };
}

/**
 * With TMUX_FLEET_CLAUDE_CAPTURE=<dir>, writes a row as Claude Code wrote it to
 * <dir>/real-row-<version><suffix>.json: the source of test/fixtures/real-row-*.json
 * (replace the machine's values, such as the machine id and paths, before keeping one).
 */
export async function captureRow(version: string, suffix: string, row: Row): Promise<void> {
  await capture(`real-row-${version}${suffix}.json`, row);
}

/** The same for a job's state file: <dir>/real-job-state-<version>-<suffix>.json (test/fixtures/real-job-state-*.json). */
export async function captureJobState(version: string, suffix: string, state: Record<string, unknown> | undefined): Promise<void> {
  if (state) await capture(`real-job-state-${version}-${suffix}.json`, state);
}

async function capture(name: string, value: unknown): Promise<void> {
  const dir = process.env.TMUX_FLEET_CLAUDE_CAPTURE;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, name), `${JSON.stringify(value)}\n`);
}

/** The requests the agent sent, in order, one line each (clock time, method, path, model, stream, tools, what it got), for the tier's output. */
export function describeTraffic(traffic: readonly TrafficEntry[]): string[] {
  return traffic.map((t) => {
    const parts = [new Date(t.at).toISOString().slice(11, 22), t.method, t.path];
    if (t.model) parts.push(t.model);
    if (t.stream !== undefined) parts.push(t.stream ? 'stream' : 'no-stream');
    if (t.tools) parts.push(t.tools.length > 0 ? `tools=${t.tools.length}${t.tools.includes('Bash') ? '(Bash…)' : ''}` : 'no tools');
    if (t.toolResult) parts.push('tool_result');
    if (t.prompt) parts.push(JSON.stringify(t.prompt.slice(0, 40)));
    if (t.answer) parts.push(`-> ${t.answer}`);
    return parts.join(' ');
  });
}

/** waitFor whose answer is never empty (it polls until there is one). */
export async function until<T>(fn: () => Promise<T> | T, what: string, timeoutMs: number, everyMs = 250): Promise<NonNullable<T>> {
  return (await waitFor(fn, what, timeoutMs, everyMs)) as NonNullable<T>;
}
