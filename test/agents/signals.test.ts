// What each agent's hooks say (docs/ownership.md#what-each-agent-tells): the
// events as the real agents send them (Claude Code 2.1.333's PermissionRequest
// as captured, Codex CLI 0.171.0's and Gemini CLI 0.61.0's as the real tier
// drives them), turned into the session's last signal; hostile input changes nothing.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { oneLineText, parseSignal, readSignals, recordHookEvent, signalOfHook, stateOfEvent, type AgentSignal } from '../../src/agents/signals';
import { makeTempDir, type TempDir } from '../helpers/env';

const SID = '5f15de19-5efa-49e5-b456-38ae66cdb62c';

describe('stateOfEvent: each agent, each event', () => {
  const bash = { tool_name: 'Bash', tool_input: { command: 'ls -la /', description: 'List the root directory' } };
  it.each([
    // Claude Code: its row tells busy, idle and waiting; the hook what a wait is for.
    ['claude', { hook_event_name: 'PermissionRequest', ...bash, permission_suggestions: [] }, { state: 'waiting', needs: 'approve Bash: ls -la /' }],
    ['claude', { hook_event_name: 'PermissionRequest', tool_name: 'Edit', tool_input: { file_path: '/w/a.ts', old_string: 'x' } }, { state: 'waiting', needs: 'approve Edit: /w/a.ts' }],
    ['claude', { hook_event_name: 'Notification', message: 'Claude needs your permission', notification_type: 'permission_prompt' }, null],
    ['claude', { hook_event_name: 'Stop' }, null],
    ['claude', { hook_event_name: 'SessionEnd' }, 'end'],
    // Codex CLI 0.171.0: a turn, a tool approval, a denial (Interrupt alone), the turn's end.
    ['codex', { hook_event_name: 'UserPromptSubmit', prompt: 'list the root', turn_id: 't1' }, { state: 'busy', needs: null }],
    ['codex', { hook_event_name: 'PreToolUse', ...bash }, { state: 'busy', needs: null }],
    ['codex', { hook_event_name: 'PermissionRequest', ...bash }, { state: 'waiting', needs: 'approve Bash: ls -la /' }],
    ['codex', { hook_event_name: 'PermissionRequest', tool_input: { command: 'rm -rf build' } }, { state: 'waiting', needs: 'approve Bash: rm -rf build' }],
    ['codex', { hook_event_name: 'PostToolUse', ...bash }, { state: 'busy', needs: null }],
    ['codex', { hook_event_name: 'Interrupt' }, { state: 'idle', needs: null }],
    ['codex', { hook_event_name: 'Stop', last_assistant_message: 'done' }, { state: 'idle', needs: null }],
    ['codex', { hook_event_name: 'PreModelRequest' }, null],
    ['codex', { hook_event_name: 'SessionEnd' }, 'end'],
    // Gemini CLI 0.61.0: BeforeAgent, the ToolPermission notification, AfterTool, AfterAgent (a denial fires nothing).
    ['gemini', { hook_event_name: 'BeforeAgent', prompt: 'list the root' }, { state: 'busy', needs: null }],
    [
      'gemini',
      {
        hook_event_name: 'Notification',
        notification_type: 'ToolPermission',
        message: 'Tool Confirm Shell Command requires execution',
        details: { type: 'exec', title: 'Confirm Shell Command', command: 'ls -la /', rootCommand: 'ls' },
      },
      { state: 'waiting', needs: 'approve Shell: ls -la /' },
    ],
    ['gemini', { hook_event_name: 'Notification', notification_type: 'ToolPermission', message: 'Tool Confirm Edit requires approval', details: { type: 'edit', title: 'Edit', fileName: 'a.ts' } }, { state: 'waiting', needs: 'approve Edit: a.ts' }],
    ['gemini', { hook_event_name: 'AfterTool', tool_name: 'run_shell_command' }, { state: 'busy', needs: null }],
    ['gemini', { hook_event_name: 'AfterAgent' }, { state: 'idle', needs: null }],
    ['gemini', { hook_event_name: 'BeforeModel' }, null],
  ] as const)('%s %j', (agent, hook, want) => {
    expect(stateOfEvent(agent, hook as Record<string, unknown>)).toEqual(want);
  });
});

describe('signalOfHook: bad input is a reason, never a signal', () => {
  it.each([
    ['not JSON', 'hello', /does not parse/],
    ['no session id', JSON.stringify({ hook_event_name: 'Stop' }), /no valid session_id/],
    ['a session id that is an option', JSON.stringify({ session_id: '--settings=x', hook_event_name: 'Stop' }), /no valid session_id/],
    ['a session id with a path', JSON.stringify({ session_id: '../../etc/passwd', hook_event_name: 'Stop' }), /no valid session_id/],
  ])('%s', (_name, text, why) => {
    const got = signalOfHook('codex', text, '%3');
    expect('skip' in got && got.skip).toMatch(why);
  });

  it('a sentence with escapes, BEL, newlines, #(…) and 100 KB comes out one inert line, cut', () => {
    const command = `\u001b]0;pwn\u0007ls\n-la #(touch /tmp/x) \u202e${'y'.repeat(100_000)}`;
    const got = signalOfHook('codex', JSON.stringify({ session_id: SID, hook_event_name: 'PermissionRequest', tool_input: { command } }), '%3', 5);
    expect('signal' in got).toBe(true);
    const s = (got as { signal: AgentSignal }).signal;
    expect(s.needs).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    expect(s.needs!.startsWith('approve Bash:  ]0;pwn ls -la #(touch /tmp/x)'.replace(/\s+/g, ' '))).toBe(true);
    expect([...s.needs!].length).toBe(200);
    expect(s.needs!.endsWith('…')).toBe(true);
    expect(s).toMatchObject({ agent: 'codex', sessionId: SID, pane: '%3', event: 'PermissionRequest', state: 'waiting', at: 5 });
  });

  it('a pane that is not tmux\'s %N is no pane', () => {
    const got = signalOfHook('gemini', JSON.stringify({ session_id: SID, hook_event_name: 'AfterAgent' }), '%3; rm -rf /');
    expect((got as { signal: AgentSignal }).signal.pane).toBeNull();
  });

  it('oneLineText keeps short text as it is', () => {
    expect(oneLineText('approve Bash: ls -la /')).toBe('approve Bash: ls -la /');
  });
});

describe('the signal file', () => {
  let tmp: TempDir;
  let home: string;
  const lines: string[] = [];
  const log = (m: string) => lines.push(m);
  beforeEach(async () => {
    tmp = await makeTempDir();
    home = join(tmp.path, 'home');
    lines.length = 0;
  });
  afterEach(() => tmp.cleanup());

  const hook = (event: string, extra: Record<string, unknown> = {}) => JSON.stringify({ session_id: SID, hook_event_name: event, ...extra });

  it('keeps the last signal of each session (0600, in a 0700 directory); the end of the session removes it', () => {
    recordHookEvent(home, 'codex', hook('UserPromptSubmit'), '%7', log);
    recordHookEvent(home, 'codex', hook('PermissionRequest', { tool_input: { command: 'ls -la /' } }), '%7', log);
    const file = join(home, 'signals', `${SID}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'signals')).mode & 0o777).toBe(0o700);
    expect(readSignals(home).get(SID)).toMatchObject({ state: 'waiting', needs: 'approve Bash: ls -la /', pane: '%7' });
    expect(readdirSync(join(home, 'signals'))).toEqual([`${SID}.json`]);
    recordHookEvent(home, 'codex', hook('SessionEnd'), '%7', log);
    expect(existsSync(file)).toBe(false);
    expect(lines).toEqual([]);
  });

  it('bad input: nothing written, one line in the log; outside tmux (a background job): nothing written, nothing said', () => {
    recordHookEvent(home, 'codex', 'not json', '%7', log);
    recordHookEvent(home, 'codex', hook('Stop'), undefined, log);
    expect(existsSync(join(home, 'signals', `${SID}.json`))).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/does not parse; nothing recorded/);
  });

  it('a signals directory others can write to is not read; a file that is a link, a FIFO or junk is no signal', () => {
    recordHookEvent(home, 'gemini', hook('BeforeAgent'), '%1', log);
    const dir = join(home, 'signals');
    const other = '0f0f0f0f-1111-4222-8333-444444444444';
    symlinkSync(join(dir, `${SID}.json`), join(dir, `${other}.json`));
    writeFileSync(join(dir, '11111111-2222-4333-8444-555555555555.json'), '{"agent":"codex"');
    expect([...readSignals(home).keys()]).toEqual([SID]);
    chmodSync(dir, 0o777);
    expect(readSignals(home).size).toBe(0);
    chmodSync(dir, 0o700);
  });

  it('parseSignal takes only what the event command writes', () => {
    const ok = { agent: 'codex', sessionId: SID, pane: '%1', event: 'Stop', state: 'idle', needs: null, at: 1 };
    expect(parseSignal(JSON.stringify(ok))).toEqual(ok);
    expect(parseSignal(JSON.stringify({ ...ok, state: 'asleep' }))).toBeNull();
    expect(parseSignal(JSON.stringify({ ...ok, pane: '%1 x' }))).toBeNull();
    expect(parseSignal(JSON.stringify({ ...ok, sessionId: '-x' }))).toBeNull();
    expect(parseSignal(JSON.stringify({ ...ok, needs: 'a\nb\u0007' }))!.needs).toBe('a b');
  });

  it('the home refused (group and others can write to it): nothing written, the reason logged', () => {
    mkdirSync(home, { mode: 0o700 });
    chmodSync(home, 0o777);
    recordHookEvent(home, 'codex', hook('Stop'), '%1', log);
    expect(existsSync(join(home, 'signals', `${SID}.json`))).toBe(false);
    expect(lines[0]).toMatch(/cannot record/);
  });
});
