// What a notification says (docs/notify.md#events, #coalescing): one event, several of one kind, several kinds.
import { describe, expect, it } from 'vitest';
import { coalesce, isErrorWait, noticeText, type Notice } from '../../src/notify/notice';

const n = (kind: Notice['kind'], who: string, what = 'approve Bash: ls -la /'): Notice => ({ kind, who, what, session: null, pane: null, task: null, agent: null });

describe('noticeText', () => {
  it.each([
    [n('wait', 'fix-login'), 'fix-login waits: approve Bash: ls -la /'],
    [n('done', 'fix-login', 'finished its turn'), 'fix-login finished its turn'],
    [n('error', 'job 45a15a22', 'API unavailable — retry'), 'job 45a15a22 failed: API unavailable — retry'],
    [n('error', 'fix-login', 'its Driver stopped'), 'fix-login: its Driver stopped'],
  ])('%j', (notice, text) => expect(noticeText(notice)).toBe(text));
});

describe('coalesce', () => {
  it.each([
    [[], ''],
    [[n('wait', 'a')], 'a waits: approve Bash: ls -la /'],
    [[n('wait', 'fix-login'), n('wait', 'add-search'), n('wait', 'migrate')], '3 agents wait: fix-login, add-search, +1'],
    [[n('wait', 'a'), n('wait', 'b')], 'a waits: approve Bash: ls -la / · b waits: approve Bash: ls -la /'],
    [[n('done', 'a', 'finished its turn'), n('wait', 'b')], 'a finished its turn · b waits: approve Bash: ls -la /'],
    [[n('done', 'a'), n('done', 'b'), n('done', 'c')], '3 agents finished: a, b, +1'],
    // One wait among other news keeps its sentence (the real tier's: two Drivers stopped, a turn ended, a Driver waits).
    [[n('wait', 'a'), n('done', 'c'), n('error', 'j')], '1 failed: j · a waits: approve Bash: ls -la / · 1 finished: c'],
    [[n('error', 'lp0', 'its Driver stopped'), n('error', 'lp1', 'its Driver stopped'), n('done', 'ta'), n('wait', 'ta')], '2 failed: lp0, lp1 · ta waits: approve Bash: ls -la / · 1 finished: ta'],
    [[n('wait', 'a'), n('wait', 'b'), n('wait', 'c'), n('done', 'd')], '3 waiting: a, b, +1 · 1 finished: d'],
    [[n('done', 'a', 'finished its turn'), n('done', 'a', 'finished its turn')], 'a finished its turn'],
    [[n('done', 'a'), n('done', 'a'), n('wait', 'b')], 'a finished its turn · b waits: approve Bash: ls -la /'],
    [[n('wait', 'a'), n('wait', 'a', 'approve Bash: rm x')], 'a waits: approve Bash: ls -la / · a waits: approve Bash: rm x'],
  ] as [Notice[], string][])('%#', (notices, text) => expect(coalesce(notices)).toBe(text));

  it('twenty waits of one wake are one line, not twenty', () => {
    const many = Array.from({ length: 20 }, (_, i) => n('wait', `task-${i}`));
    expect(coalesce(many)).toBe('20 agents wait: task-0, task-1, +18');
  });
});

describe('isErrorWait: Claude Code giving up on the model', () => {
  it.each([
    ['API unavailable — retry · API Error: 500 scripted failure', true],
    ['API Error: 529 overloaded', true],
    ['approve Bash: curl api', false],
    ['send a prompt to start', false],
  ])('%j', (what, want) => expect(isErrorWait(what)).toBe(want));
});
