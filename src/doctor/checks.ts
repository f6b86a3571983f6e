// doctor (docs/hop.md#doctor): one check per line, each with its fix. Reads only.
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { checkFleetHome, registryDir, type Context } from '../context';
import { TmuxError } from '../errors';
import { printable } from '../text';
import { findStampHooks, hookHelperPath, hookNodePath, readSettings, settingsFile } from '../hooks/settings';
import { hookAction, missingEventsNote, selectAgents, thisStampCommand } from '../hooks/agents';
import { readSignals } from '../agents/signals';
import { desktopRoute, parseChannels } from '../notify/notifier';
import { optionValueIfSet } from '../options';
import { otherAgentState, titleState } from '../agents/state';
import { AgentDiscovery, codexThreadLocks, geminiChats, geminiDirOf, geminiSessionArg, type Discovery } from '../agents/discover';
import { AGENT_NAMES, lookAt, type AgentKind } from '../agents/kind';
import { lastHandover } from '../ownership/judge';
import { isValidSlug } from '../tasks/slug';
import { judgeLoaded, loadForJudge } from '../ownership/owner';
import { AncestryCache, matchPaneAgents, type PaneAgent } from '../ownership/pane-agents';
import { bootTime, readProcStat } from '../proc';
import { follow, looksLikeUuid, parkedJob, shortSid } from '../registry/follow';
import { agentStateOf } from '../registry/hop';
import { renderAgent, sid8 } from '../status/hop-text';
import { attachJobStates } from '../registry/jobs';
import { liveRows, type LiveRow } from '../registry/liveness';
import { MAX_KEPT_ROWS, readRegistry } from '../registry/reader';
import { runningSupervisor } from '../nudge';
import { BUILT_FROM, SUPERVISOR_BUILD_OPTION } from '../build-info';
import { statusFitChecks } from '../status/fit';
import { sessionTarget } from '../tmux/args';
import { Tmux, tmuxEnvSession, UNREACHABLE_SERVER_FIX } from '../tmux/client';
import { paneSession } from '../tmux/pane';

/**
 * ok: ✔, fail: ✖ (broken: the run exits 1), skip: – (a note: not applicable,
 * or optional and absent, like the Claude Code hook; never fails the run).
 */
export type CheckState = 'ok' | 'fail' | 'skip';

export interface Check {
  id: string;
  state: CheckState;
  text: string;
  /** What to do about a failure. */
  fix?: string;
}

export interface DoctorReport {
  ok: boolean;
  server: string;
  session: string | null;
  checks: Check[];
}

export const MIN_TMUX: [number, number] = [3, 2];

/** "tmux 3.3a" -> [3, 3]; "tmux next-3.4" -> [3, 4]; null when no version can be found. */
export function parseTmuxVersion(text: string): [number, number] | null {
  const m = /(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

export function versionAtLeast(v: [number, number], min: [number, number]): boolean {
  return v[0] > min[0] || (v[0] === min[0] && v[1] >= min[1]);
}

/** A path shown without its directories: `…/name.sock`. Never the full messaging socket path. */
export function elidePath(p: string): string {
  return `…/${basename(p)}`;
}

const MARK: Record<CheckState, string> = { ok: '✔', fail: '✖', skip: '–' };

export function renderCheck(c: Check): string {
  // Texts carry values from files and tmux: no control character reaches the terminal.
  return `${MARK[c.state]} ${printable(c.text)}${c.state === 'fail' && c.fix ? ` — fix: ${printable(c.fix)}` : ''}`;
}

/** Connects to a unix socket and hangs up: reachable when someone accepts. */
export function socketReachable(path: string, timeoutMs = 1000): Promise<{ ok: boolean; error?: string }> {
  return new Promise((resolve) => {
    const sock = createConnection({ path });
    const done = (r: { ok: boolean; error?: string }) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ ok: false, error: `no answer in ${timeoutMs} ms` }), timeoutMs);
    sock.once('connect', () => done({ ok: true }));
    sock.once('error', (err: NodeJS.ErrnoException) => done({ ok: false, error: err.code ?? err.message }));
  });
}

const FIELDS = `#{pid}\t#{socket_path}\t#{version}\t#{@fleet-version}\t#{${SUPERVISOR_BUILD_OPTION}}`;

/** tmux's answer when no server listens on the socket: the socket path it tried, or null for another failure. */
export function noServerSocket(stderr: string): string | null {
  const m = /(?:no server running on|error connecting to) (\S+)/.exec(stderr);
  return m ? (m[1] as string) : null;
}

/** `pid 21085 (claude, started 2026-12-01 02:51:03 UTC)`: the process name from /proc/<pid>/comm, the start from its stat. */
export function describeProcess(pid: number): string {
  let name = '?';
  try {
    name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || '?';
  } catch {
    // gone meanwhile, or no /proc
  }
  const stat = readProcStat(pid);
  const boot = bootTime();
  const started = stat && boot !== null ? `, started ${new Date((boot + stat.startTicks / 100) * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC` : '';
  return `pid ${pid} (${name}${started})`;
}

export async function runDoctor(ctx: Context, opts: { session?: string } = {}): Promise<DoctorReport> {
  // -N on every call: doctor reads, and must never start a server (with the user's tmux.conf) where none runs.
  const tmux = new Tmux(ctx.socket, 'tmux', { startServer: false, env: ctx.env });
  const checks: Check[] = [];
  const add = (c: Check) => checks.push(c);

  // The fleet home is the user's alone (docs/tasks.md#file-modes); every other command refuses it otherwise.
  const home = checkFleetHome(ctx.home);
  if (home) add({ id: 'fleet-home', state: 'fail', text: `fleet home: ${home.path} ${home.problem}`, fix: home.fix });
  else add({ id: 'fleet-home', state: 'ok', text: `fleet home: ${ctx.home}` });

  // tmux version (the client binary; the server's own version is checked below).
  const v = await tmux.tryRun(['-V']);
  const clientVersion = v.exitCode === 0 ? parseTmuxVersion(v.stdout) : null;
  if (v.exitCode !== 0) add({ id: 'tmux-version', state: 'fail', text: `tmux: cannot be run (${v.stderr.trim() || `exit ${v.exitCode}`})`, fix: 'install tmux 3.2 or later' });
  else if (!clientVersion || !versionAtLeast(clientVersion, MIN_TMUX))
    add({ id: 'tmux-version', state: 'fail', text: `tmux version: ${v.stdout.trim()} (3.2 or later needed)`, fix: 'upgrade tmux to 3.2 or later' });
  else add({ id: 'tmux-version', state: 'ok', text: `tmux version: ${v.stdout.trim()}` });

  // Server, plugin (options and keys): one call.
  const r = await tmux
    .chain([['display-message', '-p', FIELDS], ['show-options', '-s', 'command-alias'], ['list-keys']])
    .then((stdout) => ({ exitCode: 0, stdout, stderr: '' }))
    .catch((err: unknown) => ({ exitCode: 1, stdout: '', stderr: err instanceof TmuxError ? err.stderr : String(err) }));
  const lines = r.stdout.split('\n');
  const [pid = '', socketPath = '', serverVersion = '', pluginVersion = '', supervisorBuild = ''] = (lines[0] ?? '').split('\t');
  const reachable = r.exitCode === 0 && socketPath !== '';
  const noServer = reachable ? null : noServerSocket(r.stderr);
  if (!reachable) {
    add({
      id: 'server',
      state: 'fail',
      text: noServer
        ? `server: no server on ${noServer} (${tmux.describeServer()})`
        : `server: ${tmux.describeServer()} not reachable (${r.stderr.trim().split('\n')[0] || 'no answer'})`,
      fix: UNREACHABLE_SERVER_FIX,
    });
  } else {
    const sv = parseTmuxVersion(serverVersion);
    if (sv && !versionAtLeast(sv, MIN_TMUX))
      add({ id: 'server', state: 'fail', text: `server: reachable, pid ${pid}, but runs tmux ${serverVersion}`, fix: 'restart the tmux server with tmux 3.2 or later' });
    else add({ id: 'server', state: 'ok', text: `server: reachable (${tmux.describeServer()}, pid ${pid}, tmux ${serverVersion})` });

    const alias = lines.some((l) => /^command-alias\[\d+\] "?fleet=/.test(l));
    const keys = lines.filter((l) => l.startsWith('bind-key') && /tmux-fleet|fleet-popup\.sh|fleet-owner\.sh/.test(l)).length;
    const wired = [keys > 0 ? `${keys} key${keys === 1 ? '' : 's'}` : '', alias ? 'command-alias fleet' : ''].filter(Boolean).join(', ');
    if (pluginVersion && (keys > 0 || alias)) add({ id: 'plugin', state: 'ok', text: `plugin: loaded (version ${pluginVersion}; ${wired})` });
    else
      add({
        id: 'plugin',
        state: 'fail',
        text: `plugin: ${pluginVersion ? `version ${pluginVersion} set, but no key or :fleet alias runs it` : 'not loaded (@fleet-version is unset)'}`,
        fix: "add `set -g @plugin '<owner>/tmux-fleet'` to tmux.conf and press prefix I (TPM), or run tmux-plugin.tmux",
      });

    const node = pluginVersion ? await nodeCheck(tmux) : null;
    if (node) add(node);
    const helper = await helperCheck();
    if (helper) add(helper);

    const sup = runningSupervisor(ctx.home, socketPath);
    if (sup !== null) add(supervisorBuildCheck(sup, supervisorBuild));
    else
      add({
        id: 'supervisor',
        state: 'fail',
        text: 'supervisor: not running for this server',
        fix:
          node?.state === 'fail'
            ? 'it needs node: see the node check'
            : 'reload the plugin (prefix I, or tmux run-shell <plugin>/tmux-plugin.tmux), or start `tmux-fleet supervise` in the background',
      });
    for (const c of await notifyChecks(tmux, ctx.env)) add(c);
  }

  // Registry.
  const dir = registryDir(ctx.env);
  const snapshot = await readRegistry(dir);
  const rows = snapshot.readable ? attachJobStates(await liveRows(snapshot), dir) : [];
  if (snapshot.untrusted) {
    const u = snapshot.untrusted;
    add({ id: 'registry', state: 'fail', text: `registry: ${u.path} ${u.problem}; not read (another user could forge its rows)`, fix: u.fix });
  } else if (!snapshot.readable) {
    add({ id: 'registry', state: 'fail', text: `registry: cannot read ${dir} (${snapshot.error})`, fix: 'fix its permissions, or set @fleet-registry / TMUX_FLEET_REGISTRY to the right directory' });
  } else {
    const stale = rows.filter((x) => x.liveness === 'gone').length;
    const unknown = rows.filter((x) => x.liveness === 'unknown').length;
    const uncheckable = unknown > 0 ? `, ${unknown} not checkable here` : '';
    const overCap = snapshot.overCap ? `, ${snapshot.overCap} not read (over the ${MAX_KEPT_ROWS}-row cap)` : '';
    add({ id: 'registry', state: 'ok', text: `registry: ${dir}: ${rows.length} row${rows.length === 1 ? '' : 's'} (${snapshot.malformed} malformed, ${stale} stale${uncheckable}${overCap})` });
  }

  // Each agent's hook, read and compared the same way (docs/ownership.md#agents): Claude Code, and every other agent whose directory exists.
  let hookInstalled = false;
  for (const agent of selectAgents([], ctx.env)) {
    const [check, ...notes] = await hookCheck(agent, ctx.env);
    if (agent === 'claude' && check!.state === 'ok') hookInstalled = true;
    add(check!);
    for (const n of notes) add(n);
  }

  // The session: --session, else the one holding $TMUX_PANE, else the one $TMUX names (a popup has no pane).
  let session: string | null = opts.session ?? null;
  if (session === null && reachable) session = await ownSession(tmux, ctx.env);
  if (session === null) {
    add({ id: 'session', state: 'skip', text: 'session: not inside tmux and no --session given: session checks skipped' });
  } else if (!reachable) {
    add({ id: 'session', state: 'skip', text: `session: ${session}: not checked (no server)` });
  } else {
    await sessionChecks(ctx, tmux, session, rows, snapshot.readable, { hookInstalled }, add);
  }

  return { ok: !checks.some((c) => c.state === 'fail'), server: tmux.describeServer(), session, checks };
}

/** Why each agent's hook is optional: the supervisor stamps a task's session without it. */
const HOOK_OPTIONAL: Record<AgentKind, string> = {
  claude: "without it the supervisor stamps a task's Claude Code within a second; tmux-fleet hooks install makes it instant",
  codex: 'tmux-fleet hooks install --agent codex makes the stamp instant',
  gemini: 'tmux-fleet hooks install --agent gemini makes the stamp instant',
};

/**
 * Where notifications go (docs/notify.md#channels): the channels @fleet-notify
 * names; a word it does not know, a desktop with no notification server
 * reachable, a command channel with no command: each a note, not an error.
 */
async function notifyChecks(tmux: Tmux, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const shown = await tmux.tryRun(['show-options', '-gq', '@fleet-notify']);
  const read = await tmux.tryRun(['display-message', '-p', '#{@fleet-notify}\t#{@fleet-notify-command}']);
  const [value = '', command = ''] = read.stdout.replace(/\n$/, '').split('\t');
  const { channels, unknown } = parseChannels(optionValueIfSet('@fleet-notify', shown.stdout.trim() !== '', value));
  const out: Check[] = [{ id: 'notify', state: 'ok', text: `notifications: ${channels.size > 0 ? [...channels].join(' ') : "none (@fleet-notify '')"}` }];
  if (unknown.length > 0) out.push({ id: 'notify-unknown', state: 'skip', text: `notifications: @fleet-notify names no channel ${unknown.map((w) => JSON.stringify(w)).join(', ')} (ignored; the channels: toast terminal desktop bell command)` });
  if (channels.has('desktop')) {
    const route = desktopRoute(env);
    if ('none' in route) out.push({ id: 'notify-desktop', state: 'skip', text: `notifications: desktop: ${route.none}; nothing is sent there` });
  }
  if (channels.has('command') && command.trim() === '') out.push({ id: 'notify-command', state: 'skip', text: 'notifications: command: @fleet-notify-command is empty; nothing is run' });
  return out;
}

/** The agent's hook check, and a note when its state hooks are missing. */
async function hookCheck(agent: AgentKind, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const r = await stampHookCheck(agent, env);
  if ('check' in r) return [r.check];
  const events = missingEventsNote(r.result);
  // The state hooks are optional too: without them a wait says less (and Codex's, Gemini's state comes from the title alone).
  const label = agent === 'claude' ? 'hook' : `hook (${agent})`;
  return events && r.ok.state === 'ok' ? [r.ok, { id: `${r.ok.id}-events`, state: 'skip', text: `${label}: ${events}` }] : [r.ok];
}

/**
 * One agent's hook: `hooks status` against this helper's command (the one
 * `hooks install` writes), then what would keep it from running (a helper
 * file or a node that is gone) and, for Codex, its daemon mode: a failure or
 * a note as `check`, else the status read and the check it passes.
 */
async function stampHookCheck(agent: AgentKind, env: NodeJS.ProcessEnv): Promise<{ check: Check } | { ok: Check; result: Awaited<ReturnType<typeof hookAction>> }> {
  const id = agent === 'claude' ? 'hook' : `hook-${agent}`;
  const label = agent === 'claude' ? 'hook' : `hook (${agent})`;
  const fix = agent === 'claude' ? 'tmux-fleet hooks install' : `tmux-fleet hooks install --agent ${agent}`;
  let r: Awaited<ReturnType<typeof hookAction>>;
  try {
    r = await hookAction('status', agent, thisStampCommand(), env);
  } catch (err) {
    return { check: { id, state: 'fail', text: `${label}: ${err instanceof Error ? err.message : String(err)}`, fix: `repair the file, then ${fix}` } };
  }
  if (r.found.length === 0) return { check: { id, state: 'skip', text: `${label}: no SessionStart hook runs tmux-fleet stamp in ${r.file} (optional: ${HOOK_OPTIONAL[agent]})` } };
  // A hook naming a helper file that is gone (an older build's path) stamps nothing; one naming a node that is gone fails at every start of the agent.
  const missing = r.found.map(hookHelperPath).filter((p): p is string => p !== null && !existsSync(p));
  const noNode = r.found.map(hookNodePath).filter((p): p is string => p !== null && !isExecutableFile(p));
  if (missing.length === r.found.length) return { check: { id, state: 'fail', text: `${label}: SessionStart runs ${missing[0]}, which does not exist (${r.file})`, fix } };
  if (noNode.length > 0) return { check: { id, state: 'fail', text: `${label}: SessionStart runs node ${noNode[0]}, which does not exist (${r.file})`, fix } };
  const [said, note] = r.message.split('; note: ');
  if (r.daemonMode) return { check: { id, state: 'fail', text: `${label}: ${said}`, fix: note } };
  if (!r.installed) return { check: { id, state: 'fail', text: `${label}: ${said}`, fix } };
  return { ok: { id, state: 'ok', text: `${label}: ${said}` }, result: r };
}

/** The plugin directory of this helper (dist/..), when it is a checkout of the plugin; else null. */
function pluginDir(): string | null {
  const dir = dirname(__dirname);
  return existsSync(join(dir, 'scripts', 'helpers.sh')) ? dir : null;
}

const REBUILD_FIX = (dir: string) =>
  `reload the plugin (prefix I, or tmux run-shell ${dir}/tmux-plugin.tmux): it rebuilds the helper in the background and replaces the supervisor; or cd ${dir} && npm ci && npm run build`;

/**
 * The helper against its checkout (docs/status.md#updates): what this build
 * was made from (BUILT_FROM) against what the checkout's sources are now, by
 * the plugin's own shell function (one bash). Null outside a checkout, or
 * when running from the sources.
 */
async function helperCheck(): Promise<Check | null> {
  const dir = pluginDir();
  if (dir === null || BUILT_FROM === 'unbuilt') return null;
  const { execFile } = await import('node:child_process');
  const checkout = await new Promise<string>((resolve) => {
    execFile('bash', ['-c', '. "$1" && fleet_build_inputs', 'bash', join(dir, 'scripts', 'helpers.sh')], { timeout: 10_000 }, (_err, stdout) => resolve(String(stdout).trim()));
  });
  if (checkout === '') return { id: 'helper', state: 'skip', text: `helper: built from ${BUILT_FROM}; the sources in ${dir} could not be read to compare` };
  if (checkout !== BUILT_FROM) {
    return { id: 'helper', state: 'fail', text: `helper: built from other sources than the checkout in ${dir} (built: ${BUILT_FROM}; checkout: ${checkout})`, fix: REBUILD_FIX(dir) };
  }
  return { id: 'helper', state: 'ok', text: `helper: built from the checkout (version ${BUILT_FROM.split(' ')[0]})` };
}

/** The running supervisor's build (`<pid> <built-from>`, the option it sets at start) against this helper's. */
export function supervisorBuildCheck(pid: number, said: string, builtFrom: string = BUILT_FROM, dir: string | null = pluginDir()): Check {
  const at = said.indexOf(' ');
  const saidPid = at > 0 ? Number(said.slice(0, at)) : NaN;
  const build = at > 0 ? said.slice(at + 1) : '';
  const fix = dir ? REBUILD_FIX(dir) : 'restart it: tmux-fleet supervise --replace, in the background';
  if (builtFrom === 'unbuilt' || (saidPid === pid && build === builtFrom)) return { id: 'supervisor', state: 'ok', text: `supervisor: running (pid ${pid})` };
  if (saidPid !== pid) {
    return { id: 'supervisor', state: 'fail', text: `supervisor: running (pid ${pid}), started by an older build (it does not say which)`, fix };
  }
  return { id: 'supervisor', state: 'fail', text: `supervisor: running (pid ${pid}), built from other sources (${build}) than this helper (${builtFrom})`, fix };
}

/** The oldest Node.js the helper runs on. */
export const MIN_NODE_MAJOR = 20;

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const NODE_FIX = `install Node.js ${MIN_NODE_MAJOR} or later, or set -g @fleet-node /path/to/node, then reload the plugin`;

/**
 * The node the plugin found and recorded as TMUX_FLEET_NODE in the server's
 * global environment (docs/tmux.md#node): there, and new enough (its
 * `--version`, one process).
 */
async function nodeCheck(tmux: Tmux): Promise<Check> {
  const r = await tmux.tryRun(['show-environment', '-g', 'TMUX_FLEET_NODE']);
  const node = r.exitCode === 0 ? r.stdout.replace(/\n$/, '').replace(/^TMUX_FLEET_NODE=/, '') : '';
  if (node === '' || node.startsWith('-')) {
    return { id: 'node', state: 'fail', text: "node: the plugin found no node on tmux's PATH nor in the usual places", fix: NODE_FIX };
  }
  if (!isExecutableFile(node)) return { id: 'node', state: 'fail', text: `node: ${node}, recorded by the plugin, is not there`, fix: NODE_FIX };
  const { execFile } = await import('node:child_process');
  const version = await new Promise<string>((resolve) => {
    execFile(node, ['--version'], { timeout: 5000 }, (_err, stdout) => resolve(String(stdout).trim()));
  });
  const major = /^v(\d+)\./.exec(version);
  if (!major) return { id: 'node', state: 'fail', text: `node: ${node} does not run (no version)`, fix: NODE_FIX };
  if (Number(major[1]) < MIN_NODE_MAJOR) {
    return { id: 'node', state: 'fail', text: `node: ${node} is ${version}; the helper needs Node.js ${MIN_NODE_MAJOR} or later`, fix: NODE_FIX };
  }
  return { id: 'node', state: 'ok', text: `node: ${node} (${version}), found by the plugin` };
}

/** The caller's own session: the one holding $TMUX_PANE, else the one $TMUX's last field names; null outside tmux. */
async function ownSession(tmux: Tmux, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (env.TMUX_PANE) {
    const own = await paneSession(tmux, env.TMUX_PANE);
    if (own) return own.session;
  }
  const target = tmuxEnvSession(env);
  if (target === null) return null;
  const r = await tmux.tryRun(['display-message', '-p', '-t', target, '#{session_name}']);
  const name = r.stdout.replace(/\n$/, '');
  return r.exitCode === 0 && name !== '' ? name : null;
}

async function sessionChecks(
  ctx: Context,
  tmux: Tmux,
  session: string,
  rows: LiveRow[],
  registryReadable: boolean,
  setup: { hookInstalled: boolean },
  add: (c: Check) => void,
): Promise<void> {
  const out = await tmux.tryRun(['display-message', '-p', '-t', sessionTarget(session), '#{session_name}\t#{@claude_session_id}\t#{@fleet-task}\t#{@spawn_nonce}']);
  const [name = '', stamp = '', task = '', nonce = ''] = out.stdout.replace(/\n$/, '').split('\t');
  if (out.exitCode !== 0 || name === '') {
    add({ id: 'session', state: 'fail', text: `session: no tmux session named "${session}" on ${tmux.describeServer()}`, fix: 'name an existing session with --session (tmux ls)' });
    return;
  }
  for (const c of await statusFitChecks(tmux, session)) add(c); // segments cut by status-left/right-length

  // The agents the kernel proves under the session's panes (docs/ownership.md#the-stamp-without-the-hook).
  const panes = await tmux.sessionPanes(session).catch(() => null);
  // With the agents that write no registry row here (Codex CLI, Gemini CLI, a Claude Code of another home).
  const found = panes ? new AgentDiscovery().discover(panes.map((p) => ({ session, id: p.id, pid: p.pid })), new Set(rows.filter((r) => r.liveness !== 'gone').map((r) => r.row.pid))) : null;
  const proofRows = [...rows, ...(found?.rows ?? [])];
  const agents = panes && registryReadable ? (matchPaneAgents(panes, proofRows, new AncestryCache()).get(session) ?? []) : null;
  const bound = task !== '' || nonce !== '';
  const stampCheck = stampCheckFor(session, stamp, bound, agents, setup.hookInstalled);
  if (stampCheck) add(stampCheck);
  add(paneProofCheck(session, stamp, bound, agents, proofRows));
  const kindCheck = agentKindCheck(session, stamp, found);
  if (kindCheck) add(kindCheck);
  const stateCheck = otherAgentStateCheck(ctx.home, session, stamp, found, panes ?? []);
  if (stateCheck) add(stateCheck);

  if (!task) add({ id: 'task', state: 'skip', text: `task: ${session} was not spawned for a task` });
  else if (!isValidSlug(task)) {
    add({
      id: 'task',
      state: 'fail',
      text: `task: ${session}'s @fleet-task ${JSON.stringify(printable(task.slice(0, 80)))} is not a task slug`,
      fix: `tmux set-option -t '=${session}:' -u @fleet-task (or respawn the task: tmux-fleet spawn <slug> --replace)`,
    });
  }
  else if (!stamp) add({ id: 'task', state: 'fail', text: `task ${task}: cannot be judged for ${session} without its stamp`, fix: 'see the stamp check' });
  else {
    const j = await judgeLoaded(ctx, tmux, task, await loadForJudge(ctx.home, task), { sid: stamp, from: 'as' });
    const d = j.decision;
    const h = lastHandover(j.task);
    if (h) {
      add({ id: 'handover', state: 'ok', text: `last handover of ${task}: ${h.from || '(pending)'} → ${h.to} (${h.reason}, ${h.at})` });
    }
    if (d.verdict === 0) add({ id: 'task', state: 'ok', text: `task ${task}: ${session} is its Driver (0 owner)` });
    else if (d.verdict === 9)
      add({
        id: 'task',
        state: 'fail',
        text: `task ${task}: driven by ${d.owner} (${d.liveness}), not by ${session}'s agent (9)`,
        fix: `tmux-fleet takeover ${task}${d.liveness === 'gone' ? '' : ' --force'} from ${session}, if this session should drive it`,
      });
    else add({ id: 'task', state: 'fail', text: `task ${task}: 5 unknown: ${d.reason}`, fix: 'tmux-fleet sweep, or respawn the task (tmux-fleet spawn --replace)' });
  }

  // Attach target: follow the stamp. Never a guess: an agent is not a session's because it runs in the same directory.
  if (!registryReadable) {
    add({ id: 'attach', state: 'fail', text: 'attach target: unknown (the registry cannot be read)', fix: 'see the registry check' });
    return;
  }
  if (!stamp) {
    add({ id: 'attach', state: 'skip', text: `attach target: none (${session} has no stamp; an agent is never taken for a session's by its directory)` });
    return;
  }
  const base = stamp;
  const f = follow(rows, base);
  if (f.chain.length === 0 && (rows.length > 0 || !looksLikeUuid(base))) {
    // Other rows are read, so the registry is the right one; or the stamp is no Claude Code id: an agent that writes
    // none (stamped by hand) has no hop to follow.
    add({
      id: 'attach',
      state: 'skip',
      text: `attach target: none (no registry row holds ${sid8(base)}: an agent that writes no registry, stamped with tmux-fleet stamp --sid, or one that exited)`,
    });
    return;
  }
  if (f.chain.length === 0) {
    add({
      id: 'attach',
      state: 'fail',
      text: `attach target: no registry row holds ${shortSid(base)} (${base})`,
      fix: 'is the agent still running in that session? Is @fleet-registry (TMUX_FLEET_REGISTRY) the directory Claude Code writes to?',
    });
    return;
  }
  const end = f.rows[f.rows.length - 1]!;
  const job = parkedJob(f);
  let text: string;
  if (f.hops === 0) {
    const why = f.stop === 'missing' ? `the tab parked its work on job ${end.row.parkedJobId}, but no row runs that job` : 'no hop: the work is in that tab';
    text = `attach target: ${shortSid(base)} (${why})`;
  } else {
    const ids = f.chain.map((l) => shortSid(l.sessionId)).join(' → ');
    const extra = f.stop === 'limit' ? `; stopped after ${f.hops} hops` : f.stop === 'repeat' ? '; the chain loops back' : '';
    text = `attach target: ${ids} (that tab has parked its work on background job ${job}${extra})`;
  }
  const agent = renderAgent(agentStateOf(end));
  if (!end.alive) {
    add({ id: 'attach', state: 'fail', text: `${text}, but its process ${end.row.pid} is gone`, fix: 'the agent exited; restart it (tmux-fleet spawn --resume for a task)' });
  } else {
    add({ id: 'attach', state: 'ok', text });
    add({ id: 'agent', state: 'ok', text: `agent: ${agent || 'no status'} (from the ${f.hops > 0 ? "job's" : "tab's"} row, pid ${end.row.pid})` });
  }

  // The attached row's messaging socket (the job's when following, not the tab's).
  const whose = f.hops > 0 ? "the job's socket" : "the tab's socket";
  const path = end.row.messagingSocketPath;
  if (!path) {
    add({ id: 'socket', state: 'skip', text: `socket: the attached row names no messaging socket` });
    return;
  }
  const reach = await socketReachable(path);
  if (reach.ok) add({ id: 'socket', state: 'ok', text: `socket: ${elidePath(path)} reachable (${whose})` });
  else
    add({
      id: 'socket',
      state: 'fail',
      text: `socket: ${elidePath(path)} not reachable (${whose}: ${reach.error})`,
      fix: 'the agent is not listening there; restart it',
    });
}

/**
 * Which agent runs under the session's panes and how it is proven; why it
 * cannot be (Codex's daemon mode); and, for Gemini CLI, a chat newer than the
 * id it was started with: an in-app /clear or /resume that only the hook
 * follows. Null when no agent is found there.
 */
/**
 * What a Codex CLI or Gemini CLI in the session says it is doing
 * (docs/ownership.md#what-each-agent-tells): its state as the status line
 * shows it, and where it comes from (its hooks' last signal, its pane's title).
 */
export function otherAgentStateCheck(home: string, session: string, stamp: string, found: Discovery | null, panes: readonly { id: string; title: string }[]): Check | null {
  const kind = found?.kinds.get(session);
  if (!kind || (kind.kind !== 'codex' && kind.kind !== 'gemini') || stamp === '') return null;
  const signal = readSignals(home, [stamp]).get(stamp) ?? null;
  const ours = signal && panes.some((p) => p.id === signal.pane) ? signal : null;
  const pane = panes.find((p) => p.id === (kind.pane ?? ours?.pane)) ?? panes.find((p) => titleState(kind.kind, p.title) !== null);
  const state = otherAgentState(kind.kind, stamp, ours, pane?.title ?? null);
  const from = [
    ours ? `its ${ours.event} hook ${Math.max(0, Math.round((Date.now() - ours.at) / 1000))} s ago` : signal ? "a hook signal from another session's pane (not used)" : 'no hook signal (tmux-fleet hooks install adds the state hooks)',
    pane && titleState(kind.kind, pane.title) !== null ? `its title ${JSON.stringify(printable(pane.title))}` : 'no title of its own',
  ].join('; ');
  if (!state) return { id: 'agent-state', state: 'skip', text: `agent state: ${kind.kind} has told nothing yet (${from})` };
  return { id: 'agent-state', state: 'ok', text: `agent state: ${renderAgent(state)} (${from})` };
}

export function agentKindCheck(session: string, stamp: string, found: Discovery | null): Check | null {
  const unprovable = found?.unprovable.get(session);
  if (unprovable) return { id: 'agent-kind', state: 'fail', text: `agent: cannot be proven for ${session}`, fix: unprovable };
  const nearest = found?.kinds.get(session);
  if (!nearest) return null;
  const name = AGENT_NAMES[nearest.kind];
  if (nearest.kind === 'gemini') {
    const look = lookAt(nearest.pid);
    const started = geminiSessionArg(look.argv ?? []);
    const dir = geminiDirOf(look.env() ?? new Map());
    const newest = dir ? geminiChats(dir, { max: 1 })[0] : undefined;
    if (started && newest && newest.sid !== started && newest.sid !== stamp) {
      return {
        id: 'agent-kind',
        state: 'fail',
        text: `agent: ${name} (pid ${nearest.pid}) started as ${sid8(started)}, but the newest chat of ${dir} is ${sid8(newest.sid)}: it may have switched sessions in the app (/clear or /resume), which only its hook follows`,
        fix: 'tmux-fleet hooks install --agent gemini (then /clear once in that session, or restart it)',
      };
    }
    return { id: 'agent-kind', state: 'ok', text: `agent: ${name} (pid ${nearest.pid})${started ? `, started with --session-id ${sid8(started)}` : ''}` };
  }
  const lock = nearest.kind === 'codex' ? codexThreadLocks(nearest.pid)[0] : undefined;
  return { id: 'agent-kind', state: 'ok', text: `agent: ${name} (pid ${nearest.pid})${lock ? `, holding the thread lock of ${sid8(lock)}` : ''}` };
}

const STAMP_BY_HAND = 'tmux-fleet stamp --sid <id>';

/**
 * Why a session carries no stamp, and what to do, from what runs under its
 * panes (docs/hop.md#doctor): an agent nothing stamped yet (the supervisor
 * stamps a task's session, the hook any session), none (another CLI agent
 * becomes a Driver by stamping itself), or the panes or the registry
 * unreadable. `doctor` and `follow` say the same.
 */
export function missingStamp(session: string, bound: boolean, agents: readonly PaneAgent[] | null, hookInstalled: boolean): { cause: string; fix: string } {
  const agent = agents?.[0];
  if (agent) {
    const byHand = `run tmux-fleet stamp --sid ${agent.row.sessionId} inside ${session}`;
    const fix = bound
      ? 'the supervisor stamps it within a second; is it running? (see the supervisor check)'
      : hookInstalled
        ? `the hook stamps at the agent's next start or /clear; now: ${byHand}`
        : `tmux-fleet hooks install (the supervisor stamps only a task's session), or ${byHand}`;
    const name = AGENT_NAMES[agent.kind] as string | undefined;
    return { cause: `${name ? `a ${name}` : 'an agent'} (session ${agent.row.sessionId}) runs under its pane ${agent.pane}, unstamped`, fix };
  }
  if (agents === null) {
    return {
      cause: 'its panes or the registry cannot be read',
      fix: `start the agent; Claude Code, Codex CLI and Gemini CLI are stamped by their hook or the supervisor, any other CLI agent by ${STAMP_BY_HAND} run inside ${session}`,
    };
  }
  const none = 'no Claude Code, Codex CLI or Gemini CLI runs under its panes';
  const other = `any other CLI agent becomes a Driver when ${STAMP_BY_HAND} runs inside ${session} (docs/ownership.md#the-stamp)`;
  if (!bound) {
    const hook = hookInstalled ? 'their hook' : 'their hook (tmux-fleet hooks install)';
    return { cause: none, fix: `start an agent there: Claude Code, Codex CLI and Gemini CLI are stamped by ${hook}, any other CLI agent by ${STAMP_BY_HAND} run inside ${session}` };
  }
  return { cause: none, fix: hookInstalled ? other : `start the agent in ${session} (the supervisor stamps a task's session); ${other}` };
}

/**
 * The stamp check, with the fix of missingStamp(). Null for an unstamped
 * session with no agent and no task: nothing to check.
 */
export function stampCheckFor(session: string, stamp: string, bound: boolean, agents: readonly PaneAgent[] | null, hookInstalled: boolean): Check | null {
  if (stamp) return { id: 'stamp', state: 'ok', text: `stamp: ${session} runs session ${stamp}` };
  const text = `stamp: ${session} carries no @claude_session_id`;
  const { cause, fix } = missingStamp(session, bound, agents, hookInstalled);
  if (agents?.[0]) return { id: 'stamp', state: 'fail', text, fix };
  if (!bound) return null;
  if (agents === null) return { id: 'stamp', state: 'fail', text, fix };
  return { id: 'stamp', state: 'fail', text: `${text}, and ${cause}`, fix };
}

/** Why tmux session `session` carries no stamp, read now (its task marks, its panes, the hook): one line for `follow`. */
export async function explainMissingStamp(ctx: Context, tmux: Tmux, session: string, rows: readonly LiveRow[], registryReadable: boolean): Promise<string> {
  const marks = await tmux.tryRun(['display-message', '-p', '-t', sessionTarget(session), '#{@fleet-task}#{@spawn_nonce}']);
  const bound = marks.exitCode === 0 && marks.stdout.trim() !== '';
  const panes = await tmux.sessionPanes(session).catch(() => null);
  const agents = panes && registryReadable ? (matchPaneAgents(panes, rows, new AncestryCache()).get(session) ?? []) : null;
  const hookInstalled = await readSettings(settingsFile(ctx.env))
    .then((s) => findStampHooks(s.data).length > 0)
    .catch(() => false);
  const { cause, fix } = missingStamp(session, bound, agents, hookInstalled);
  return `${cause}; ${fix.replace(/ \(see the supervisor check\)$/, ' (tmux-fleet doctor)')}`;
}

/**
 * The pane proof: which live agent runs under the session's panes (by process
 * ancestry, never by the row's tmux field) and whether it holds the stamp.
 */
export function paneProofCheck(session: string, stamp: string, bound: boolean, agents: readonly PaneAgent[] | null, rows: readonly LiveRow[]): Check {
  if (agents === null) return { id: 'pane-agent', state: 'skip', text: `agent: not proven (the panes of ${session} or the registry cannot be read)` };
  const holder = stamp ? agents.find((a) => a.row.sessionId === stamp) : undefined;
  const proof = (a: PaneAgent) => `${describeProcess(a.row.pid)} under pane ${a.pane} holds session ${sid8(a.row.sessionId)}`;
  if (holder) return { id: 'pane-agent', state: 'ok', text: `agent: ${proof(holder)}, matches the stamp` };
  const nearest = agents[0];
  if (!stamp) {
    if (!nearest) return { id: 'pane-agent', state: 'skip', text: `agent: none runs under the panes of ${session}` };
    return {
      id: 'pane-agent',
      state: 'fail',
      text: `agent: ${proof(nearest)}, but ${session} carries no stamp`,
      fix: bound ? 'the supervisor stamps it within a second; is it running?' : `run tmux-fleet stamp --sid ${nearest.row.sessionId} inside ${session}`,
    };
  }
  if (nearest) {
    return {
      id: 'pane-agent',
      state: 'fail',
      text: `agent: ${proof(nearest)}, not the stamp ${sid8(stamp)}`,
      fix: bound
        ? `the supervisor stamps a task's session with its new agent within a second (is it running?); to drive the task from it: tmux-fleet takeover`
        : `run tmux-fleet stamp --sid ${nearest.row.sessionId} inside ${session}`,
    };
  }
  // No row ever held the stamp: an agent that writes no registry (stamped by hand); nothing to prove it with.
  if (!rows.some((r) => r.row.sessionId === stamp)) {
    return { id: 'pane-agent', state: 'skip', text: `agent: no registry row holds ${sid8(stamp)} (an agent that writes none, stamped by hand): nothing to prove` };
  }
  return {
    id: 'pane-agent',
    state: 'fail',
    text: `agent: the stamp names ${sid8(stamp)} but no live agent runs under the panes of ${session}`,
    fix: 'the agent exited or runs elsewhere; restart it in that session (tmux-fleet spawn --resume for a task)',
  };
}
