// Whether an agent waits for an answer (send refuses then): from its state and, for
// Codex CLI and Gemini CLI, its pane's title as measured (docs/ownership.md#send).
import { describe, expect, it } from 'vitest';
import { waitsForAnswer } from '../../src/agents/approval';

const state = (over: Record<string, unknown> = {}) => ({ status: 'idle', waitingFor: null, needs: null, tempo: null, alive: true, ...over });

describe('waitsForAnswer', () => {
  it.each([
    ['Claude Code at a permission prompt', { agent: 'claude', state: state({ status: 'waiting', waitingFor: 'permission prompt' }) }, 'it waits (permission prompt)'],
    ['Claude Code with its hook\'s sentence', { agent: 'claude', state: state({ status: 'waiting', waitingFor: 'permission prompt', needs: 'approve Bash: ls -la /' }) }, 'it waits: approve Bash: ls -la /'],
    ['a job blocked on an approval', { agent: 'claude', state: state({ status: null, tempo: 'blocked', needs: 'approve Bash: ls -la /' }) }, 'it waits: approve Bash: ls -la /'],
    ['Codex waiting, by its title', { agent: 'codex', state: null, paneTitle: '[ ! ] Action Required | List the root | work' }, 'it waits for an approval (its title says Action Required)'],
    ['Codex waiting, the title blinking', { agent: 'codex', paneTitle: '[ . ] Action Required | List the root | work' }, 'it waits for an approval (its title says Action Required)'],
    ['Gemini waiting, by its title', { agent: 'gemini', paneTitle: '✋  Action Required (work)' }, 'it waits for an approval (its title says Action Required)'],
    ['Gemini waiting, its hand drawn as _', { agent: 'gemini', paneTitle: '_  Action Required (work)' }, 'it waits for an approval (its title says Action Required)'],
  ] as const)('%s: waits', (_name, facts, why) => {
    expect(waitsForAnswer(facts as Parameters<typeof waitsForAnswer>[0])).toBe(why);
  });

  it.each([
    ['Claude Code idle', { agent: 'claude', state: state() }],
    ['Claude Code busy', { agent: 'claude', state: state({ status: 'busy' }) }],
    ['a job asking for its first prompt', { agent: 'claude', state: state({ status: null, tempo: 'blocked', needs: 'send a prompt to start' }) }],
    ['a dead row that waited', { agent: 'claude', state: state({ status: 'waiting', alive: false }) }],
    ['Codex idle', { agent: 'codex', paneTitle: 'List the root | work' }],
    ['Gemini ready', { agent: 'gemini', paneTitle: '◇  Ready (work)' }],
    ['a shell whose title says Action Required', { agent: null, paneTitle: 'Action Required (x)' }],
    ['Claude Code whose title says Action Required', { agent: 'claude', state: state(), paneTitle: '[ ! ] Action Required | x' }],
  ] as const)('%s: does not wait', (_name, facts) => {
    expect(waitsForAnswer(facts as Parameters<typeof waitsForAnswer>[0])).toBeNull();
  });
});
