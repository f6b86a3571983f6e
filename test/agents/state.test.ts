// The state of an agent that writes no registry row, from its hooks and its
// pane's title, and a Claude Code wait with its hook's sentence: pure tables
// (docs/ownership.md#what-each-agent-tells). The titles are the real agents'
// (Codex CLI 0.171.0, Gemini CLI 0.61.0), as tmux 3.3a holds them with and
// without a UTF-8 locale.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSignal } from '../../src/agents/signals';
import { otherAgentState, TITLE_CLASSES, titleClass, titleClassFormat, titleState, withHookNeeds } from '../../src/agents/state';
import type { AgentState } from '../../src/registry/hop';

const SID = '5f15de19-5efa-49e5-b456-38ae66cdb62c';

const CODEX_TITLES: [string, 'busy' | 'idle' | 'waiting' | null][] = [
  ['work', null],
  ['⠦ work', 'busy'],
  ['⠏ Write a haiku | work', 'busy'],
  ['_ Write a haiku | work', 'busy'],
  ['[ ! ] Action Required | Write a haiku | work', 'waiting'],
  ['[ . ] Action Required | Write a haiku | work', 'waiting'],
  ['Write a haiku | work', 'idle'],
  ['user@host: ~/work', null],
  ['', null],
];
const GEMINI_TITLES: [string, 'busy' | 'idle' | 'waiting' | null][] = [
  ['✋ Action Required (work)', 'waiting'],
  ['__  Action Required (work)', 'waiting'],
  ['✦ Working… (work)', 'busy'],
  ['_ Working_ (work)', 'busy'],
  ['◇ Ready (work)', 'idle'],
  ['_  Ready (work)', 'idle'],
  ['Gemini CLI', null],
];

describe('titleState', () => {
  it.each(CODEX_TITLES)('codex %j', (title, want) => expect(titleState('codex', title)).toBe(want));
  it.each(GEMINI_TITLES)('gemini %j', (title, want) => expect(titleState('gemini', title)).toBe(want));
  it('Claude Code (its row tells) and others: never from a title', () => {
    expect(titleState('claude', '✳ Action Required')).toBeNull();
  });
});

describe('the title hook and the classifier read one table', () => {
  let server = '';
  const t = (...args: string[]) => execFileSync('tmux', ['-L', server, ...args], { encoding: 'utf8' });
  beforeAll(() => {
    server = `fleet-test-${randomBytes(6).toString('hex')}`;
    t('-f', '/dev/null', 'new-session', '-d', '-s', 'a', 'sleep 600');
  });
  afterAll(() => {
    try {
      t('kill-server');
    } catch {
      /* gone */
    }
  });

  it('tmux computes the same class of every title as the supervisor does', () => {
    for (const [title] of [...CODEX_TITLES, ...GEMINI_TITLES, ['plain'] as const, ['Écrire | work'] as const]) {
      t('select-pane', '-t', '=a:', '-T', title);
      expect([title, t('display-message', '-p', '-t', '=a:', titleClassFormat()).trim()]).toEqual([title, titleClass(title)]);
    }
    expect(TITLE_CLASSES.every((c) => !/[,}#]/.test(c.glob))).toBe(true);
  });
});

describe('otherAgentState: the hook first, the title where they disagree on a wait', () => {
  const signal = (state: AgentSignal['state'], needs: string | null = null, at = 1000): AgentSignal => ({ agent: 'codex', sessionId: SID, pane: '%1', event: 'x', state, needs, at });
  it.each([
    ['nothing said', null, null, null],
    ['the title alone', null, '⠏ Write | work', { status: 'busy', waitingFor: null, needs: null }],
    ['a wait by the title, no hook: waiting for an approval', null, '[ ! ] Action Required | x | work', { status: 'waiting', waitingFor: 'approval', needs: null }],
    ['a wait by both: the hook\'s sentence', signal('waiting', 'approve Bash: ls -la /'), '[ . ] Action Required | x | w', { status: 'waiting', waitingFor: null, needs: 'approve Bash: ls -la /', since: 1000 }],
    ['a denial no hook tells: the title is idle again', signal('waiting', 'approve Bash: ls'), 'Write | work', { status: 'idle', waitingFor: null, needs: null }],
    ['no title of its own: the hook', signal('busy', null, 7), 'work', { status: 'busy', needs: null, since: 7 }],
    ["a turn's start: the hook says busy before the title does", signal('busy', null, 7), 'After the clear | work', { status: 'busy', since: 7 }],
    ["a turn's end: the hook says idle while the spinner still turns", signal('idle', null, 7), '⠏ Write | work', { status: 'idle', since: 7 }],
    ['an approval prompt no hook reported yet: the title', signal('busy', null, 7), '[ ! ] Action Required | x | w', { status: 'waiting', waitingFor: 'approval', needs: null }],
    ['the hook waits, no title', signal('waiting', 'approve Bash: x'), null, { status: 'waiting', needs: 'approve Bash: x', waitingFor: null }],
  ] as const)('%s', (_name, sig, title, want) => {
    const got = otherAgentState('codex', SID, sig, title);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatchObject({ sessionId: SID, alive: true, ...want });
  });
});

describe('withHookNeeds: a Claude Code wait with its PermissionRequest sentence', () => {
  const row = (over: Partial<AgentState> = {}): AgentState => ({ sessionId: SID, status: 'waiting', waitingFor: 'permission prompt', needs: null, alive: true, ...over });
  const sig = (at: number, over: Partial<AgentSignal> = {}): AgentSignal => ({ agent: 'claude', sessionId: SID, pane: '%1', event: 'PermissionRequest', state: 'waiting', needs: 'approve Bash: ls -la /', at, ...over });
  it.each([
    ['the hook just before the row (as measured: 10-20 ms)', row(), sig(9_990), 10_000, 'approve Bash: ls -la /'],
    ['the hook after the row', row(), sig(10_500), 10_000, 'approve Bash: ls -la /'],
    ['an earlier wait\'s hook', row(), sig(1_000), 10_000, null],
    ['the row no longer waits', row({ status: 'busy', waitingFor: null }), sig(10_000), 10_000, null],
    ['a job\'s own sentence is kept', row({ needs: 'approve Read: /etc' }), sig(10_000), 10_000, 'approve Read: /etc'],
    ['another session\'s signal', row(), sig(10_000, { sessionId: '0f0f0f0f-1111-4222-8333-444444444444' }), 10_000, null],
  ] as const)('%s', (_name, state, signal, at, needs) => {
    expect(withHookNeeds(state, signal, at).needs ?? null).toBe(needs);
  });
});
