// Where things live. Every path the helper uses is derived here, once.
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FleetError } from './errors';

export interface SocketChoice {
  /** tmux -L */
  name?: string;
  /** tmux -S */
  path?: string;
}

export interface Context {
  home: string;
  socket: SocketChoice;
  json: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * $HOME, else the home the password database names. node:os is loaded only then:
 * loading it costs about 0.5 ms of every start (docs/budgets.md#owner-start-up).
 */
function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || (require('node:os') as typeof import('node:os')).homedir();
}

export function fleetHome(env: NodeJS.ProcessEnv = process.env, flag?: string): string {
  if (flag) return flag;
  if (env.TMUX_FLEET_HOME) return env.TMUX_FLEET_HOME;
  const state = env.XDG_STATE_HOME || join(userHome(env), '.local', 'state');
  return join(state, 'tmux-fleet');
}

export function tasksDir(home: string): string {
  return join(home, 'tasks');
}

export function taskDir(home: string, slug: string): string {
  return join(home, 'tasks', slug);
}

export function logFile(home: string): string {
  return join(home, 'log');
}

/** Runtime files (supervisor pid files). */
export function runDir(home: string): string {
  return join(home, 'run');
}

/** What the agents' hooks said last, one file per session id (src/agents/signals.ts). */
export function signalsDir(home: string): string {
  return join(home, 'signals');
}

/** The directories of a fleet home that must be the user's alone: the home, tasks/, run/, signals/. */
export function privateDirs(home: string): string[] {
  return [home, tasksDir(home), runDir(home), signalsDir(home)];
}

/** What a check of a directory needs to know (fs.Stats has it). */
export interface DirFacts {
  uid: number;
  mode: number;
  isDirectory: boolean;
}

export interface DirProblem {
  path: string;
  /** "is writable by group and others" */
  problem: string;
  /** A shell command that fixes it. */
  fix: string;
}

/**
 * Why a directory of the fleet home cannot be trusted, or null. As ssh does
 * for ~/.ssh: it must be a directory owned by the user and writable by no one
 * else, or another user could plant a task, a lock or a pid file in it
 * (docs/tasks.md#file-modes). Pure.
 */
export function privateDirProblem(path: string, facts: DirFacts, uid: number): DirProblem | null {
  if (!facts.isDirectory) return { path, problem: 'is not a directory', fix: `rm ${path} (tmux-fleet makes the directory)` };
  if (facts.uid !== uid) {
    return { path, problem: `is owned by uid ${facts.uid}, not by you (uid ${uid})`, fix: `chown ${uid} ${path} && chmod 700 ${path}` };
  }
  const group = (facts.mode & 0o020) !== 0;
  const others = (facts.mode & 0o002) !== 0;
  if (group || others) {
    const who = group && others ? 'group and others' : group ? 'group' : 'others';
    return { path, problem: `is writable by ${who}`, fix: `chmod 700 ${path}` };
  }
  return null;
}

/**
 * Why a directory whose files decide something (the fleet home, Claude Code's
 * registry and job state directory) cannot be trusted, or null when it can or
 * does not exist. A link counts as its own owner's first (another user's link
 * to a directory of ours is theirs to repoint; root's are the system's), then
 * the directory it names must pass privateDirProblem. Reads only: one lstat,
 * and a stat for a link (docs/tasks.md#file-modes).
 */
export function dirTrustProblem(dir: string, uid: number | undefined = process.getuid?.()): DirProblem | null {
  if (uid === undefined) return null;
  const link = lstatSync(dir, { throwIfNoEntry: false });
  if (!link) return null;
  let st = link;
  if (link.isSymbolicLink()) {
    if (link.uid !== uid && link.uid !== 0) return { path: dir, problem: `is a link owned by uid ${link.uid}, not by you (uid ${uid})`, fix: `rm ${dir}` };
    const target = statSync(dir, { throwIfNoEntry: false });
    if (!target) return null;
    st = target;
  }
  return privateDirProblem(dir, { uid: st.uid, mode: st.mode, isDirectory: st.isDirectory() }, uid);
}

/** The first problem of the fleet home's directories (missing ones are none); reads only. */
export function checkFleetHome(home: string, uid: number | undefined = process.getuid?.()): DirProblem | null {
  for (const dir of privateDirs(home)) {
    const problem = dirTrustProblem(dir, uid);
    if (problem) return problem;
  }
  return null;
}

/**
 * Makes the fleet home, tasks/ and run/ (0700) where missing, and refuses a
 * home someone else could write to: a FleetError (exit 1) of one line with
 * the fix. Commands call it before they first use the home.
 */
export function ensureFleetHome(home: string): void {
  // Checked before a command uses it. Nothing is made here: a command that
  // fails on its arguments leaves no trace; those that write make their
  // directories 0700 and check again (makePrivateDirs).
  const problem = checkFleetHome(home);
  if (problem) throw refuseHome(problem);
}

function refuseHome(p: DirProblem): FleetError {
  return new FleetError(`fleet home: ${p.path} ${p.problem}; refusing to use it (fix: ${p.fix})`);
}

/** Makes the fleet home's private directories (0700) and checks them again: one made meanwhile by someone else is refused. */
export function makePrivateDirs(home: string): void {
  for (const dir of privateDirs(home)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = checkFleetHome(home);
  if (problem) throw refuseHome(problem);
}

export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(userHome(env), '.claude');
}

/** Codex CLI's home: $CODEX_HOME, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME || join(userHome(env), '.codex');
}

/** Gemini CLI's directory: .gemini under $GEMINI_CLI_HOME, else under the home (as Gemini CLI 0.61.0 derives it). */
export function geminiDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.GEMINI_CLI_HOME || userHome(env), '.gemini');
}

/**
 * Claude Code's session registry. TMUX_FLEET_REGISTRY wins; the plugin exports the
 * option @fleet-registry into tmux's global environment under that name, so
 * panes and run-shell jobs see it without a tmux call.
 */
export function registryDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TMUX_FLEET_REGISTRY || join(claudeConfigDir(env), 'sessions');
}

export function socketFromEnv(env: NodeJS.ProcessEnv, flags: SocketChoice = {}): SocketChoice {
  if (flags.path) return { path: flags.path };
  if (flags.name) return { name: flags.name };
  if (env.TMUX_FLEET_SOCKET_PATH) return { path: env.TMUX_FLEET_SOCKET_PATH };
  if (env.TMUX_FLEET_SOCKET) return { name: env.TMUX_FLEET_SOCKET };
  return {};
}

export function makeContext(
  opts: { home?: string; socket?: string; socketPath?: string; json?: boolean } = {},
  env: NodeJS.ProcessEnv = process.env,
): Context {
  return {
    home: fleetHome(env, opts.home),
    socket: socketFromEnv(env, { name: opts.socket, path: opts.socketPath }),
    json: Boolean(opts.json),
    env,
  };
}
