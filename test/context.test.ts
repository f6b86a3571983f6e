// Where things live (src/context.ts): each path from the environment, in order of precedence.
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { claudeConfigDir, fleetHome, registryDir, socketFromEnv } from '../src/context';

describe('paths from the environment', () => {
  it.each([
    ['--home wins', { TMUX_FLEET_HOME: '/t', XDG_STATE_HOME: '/x', HOME: '/h' }, '/flag', '/flag'],
    ['TMUX_FLEET_HOME', { TMUX_FLEET_HOME: '/t', XDG_STATE_HOME: '/x', HOME: '/h' }, undefined, '/t'],
    ['XDG_STATE_HOME', { XDG_STATE_HOME: '/x', HOME: '/h' }, undefined, '/x/tmux-fleet'],
    ['HOME', { HOME: '/h' }, undefined, '/h/.local/state/tmux-fleet'],
    ['no HOME: the home the system names', {}, undefined, `${homedir()}/.local/state/tmux-fleet`],
  ])('fleet home: %s', (_what, env, flag, expected) => {
    expect(fleetHome(env, flag)).toBe(expected);
  });

  it.each([
    ['CLAUDE_CONFIG_DIR', { CLAUDE_CONFIG_DIR: '/c', HOME: '/h' }, '/c', '/c/sessions'],
    ['HOME', { HOME: '/h' }, '/h/.claude', '/h/.claude/sessions'],
    ['no HOME', {}, `${homedir()}/.claude`, `${homedir()}/.claude/sessions`],
  ])("Claude Code's config and registry: %s", (_what, env, config, registry) => {
    expect(claudeConfigDir(env)).toBe(config);
    expect(registryDir(env)).toBe(registry);
    expect(registryDir({ ...env, TMUX_FLEET_REGISTRY: '/r' })).toBe('/r');
  });

  it('the socket: a flag wins, a path wins over a name', () => {
    expect(socketFromEnv({ TMUX_FLEET_SOCKET: 'n', TMUX_FLEET_SOCKET_PATH: '/p' })).toEqual({ path: '/p' });
    expect(socketFromEnv({ TMUX_FLEET_SOCKET: 'n' })).toEqual({ name: 'n' });
    expect(socketFromEnv({ TMUX_FLEET_SOCKET: 'n' }, { name: 'f' })).toEqual({ name: 'f' });
    expect(socketFromEnv({})).toEqual({});
  });
});
