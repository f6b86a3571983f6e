// Where things live. Every path the helper uses is derived here, once.
import { homedir } from 'node:os';
import { join } from 'node:path';

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

export function fleetHome(env: NodeJS.ProcessEnv = process.env, flag?: string): string {
  if (flag) return flag;
  if (env.TMUX_FLEET_HOME) return env.TMUX_FLEET_HOME;
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
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

export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
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
