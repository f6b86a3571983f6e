// The pure parts of doctor: which server and session $TMUX names, tmux's "no server" answer, the stamp fix for each case.
import { describe, expect, it } from 'vitest';
import { missingStamp, noServerSocket, stampCheckFor } from '../../src/doctor/checks';
import type { PaneAgent } from '../../src/ownership/pane-agents';
import { Tmux, tmuxEnvSession } from '../../src/tmux/client';

describe('the server and session of $TMUX', () => {
  it('inside -L nc-user with no socket chosen: that server, named by its socket path', () => {
    const env = { TMUX: '/tmp/tmux-1000/nc-user,4242,3' };
    expect(new Tmux({}, 'tmux', { env }).describeServer()).toBe('tmux server at /tmp/tmux-1000/nc-user (from $TMUX)');
    expect(tmuxEnvSession(env)).toBe('$3');
  });

  it('a chosen socket wins over $TMUX; outside tmux: the default server and no session', () => {
    const env = { TMUX: '/tmp/tmux-1000/nc-user,4242,3' };
    expect(new Tmux({ name: 'work' }, 'tmux', { env }).describeServer()).toBe('tmux server -L work');
    expect(new Tmux({}, 'tmux', { env: {} }).describeServer()).toBe('the default tmux server');
    expect(tmuxEnvSession({})).toBeNull();
    expect(tmuxEnvSession({ TMUX: 'garbage' })).toBeNull();
  });
});

describe("tmux's answer when no server listens", () => {
  it.each([
    ['no server running on /tmp/tmux-0/x\n', '/tmp/tmux-0/x'],
    ['error connecting to /tmp/tmux-0/y (No such file or directory)\n', '/tmp/tmux-0/y'],
    ['unknown option -- N\n', null],
  ])('%j', (stderr, socket) => {
    expect(noServerSocket(stderr)).toBe(socket);
  });
});

describe('the stamp check: a fix that fits', () => {
  const agent = { row: { pid: 10, sessionId: 'sid-under-pane' }, kind: 'claude', session: 's', pane: '%1', depth: 1 } as unknown as PaneAgent;

  it('stamped: ok', () => {
    expect(stampCheckFor('s', 'sid-1', true, [], true)).toMatchObject({ state: 'ok', text: 'stamp: s runs session sid-1' });
  });

  it('a Claude Code under the panes of a task session: the supervisor stamps it', () => {
    expect(stampCheckFor('s', '', true, [agent], true)?.fix).toBe('the supervisor stamps it within a second; is it running? (see the supervisor check)');
  });

  it('a Claude Code under the panes of a session without a task: the hook, or the stamp by hand with its id', () => {
    expect(stampCheckFor('s', '', false, [agent], true)?.fix).toContain('tmux-fleet stamp --sid sid-under-pane inside s');
    expect(stampCheckFor('s', '', false, [agent], false)?.fix).toMatch(/^tmux-fleet hooks install .*tmux-fleet stamp --sid sid-under-pane inside s$/);
  });

  it('no Claude Code under a task session: the stamp command; without the hook also starting Claude Code (the supervisor stamps it: the hook is optional)', () => {
    expect(stampCheckFor('s', '', true, [], true)?.fix).not.toContain('hooks install');
    expect(stampCheckFor('s', '', true, [], true)?.fix).toContain('tmux-fleet stamp --sid <id> runs inside s');
    expect(stampCheckFor('s', '', true, [], false)?.fix).toMatch(/^start the agent in s \(the supervisor stamps a task's session\); any other CLI agent/);
    expect(stampCheckFor('s', '', true, [], false)?.fix).not.toContain('hooks install');
  });

  it("missingStamp: the cause said as it is (follow's line), the hook named only where it is missing and would help", () => {
    expect(missingStamp('plain', false, [], true)).toEqual({
      cause: 'no Claude Code, Codex CLI or Gemini CLI runs under its panes',
      fix: 'start an agent there: Claude Code, Codex CLI and Gemini CLI are stamped by their hook, any other CLI agent by tmux-fleet stamp --sid <id> run inside plain',
    });
    expect(missingStamp('plain', false, [], false).fix).toContain('their hook (tmux-fleet hooks install)');
    expect(missingStamp('s', false, [agent], true).cause).toBe('a Claude Code (session sid-under-pane) runs under its pane %1, unstamped');
    expect(missingStamp('s', true, null, true).cause).toBe('its panes or the registry cannot be read');
  });

  it('a plain session without a task and without an agent: nothing to check', () => {
    expect(stampCheckFor('s', '', false, [], true)).toBeNull();
  });
});
