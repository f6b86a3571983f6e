// What restore makes of the judge's decision and of the session its name holds (pure; docs/ownership.md#restore).
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/ownership/judge';
import { paneForRestore, restoreTarget } from '../../src/ownership/restore';
import type { SessionPaneRead } from '../../src/tmux/session-marks';

const SID = '11111111-2222-4333-8444-555555555555';
const decision = (over: Partial<Decision>): Decision => ({ verdict: 9, owner: SID, liveness: 'gone', via: 'sid', reason: 'r', code: 'sid-other', ...over });

describe('restoreTarget', () => {
  it.each<[string, Partial<Decision>, Record<string, unknown>, object]>([
    ['a gone owner is resumed', {}, {}, { sid: SID }],
    ['a live owner is left', { liveness: 'live', ownerSession: 'op-x' }, {}, { skip: `its Driver ${SID} runs in tmux session op-x` }],
    ['unknown is never taken for gone', { liveness: 'unknown' }, {}, { refuse: `cannot tell whether its Driver ${SID} still runs (its liveness is unknown)` }],
    ['a last owner id that is no session id', { owner: 'a b' }, {}, { refuse: 'its last owner id "a b" is not a session id, so there is no conversation to resume' }],
    ['a Driver starting (another restore) is left', { verdict: 5, owner: null, liveness: null, code: 'booting' }, { driverPane: 'op-x' }, { skip: 'its Driver is starting in tmux session op-x (pending)' }],
    ['a resume that never stamped, its session gone: its prior owner', { verdict: 5, owner: null, liveness: null, code: 'no-nonce' }, { priorDriverSid: SID }, { sid: SID }],
    [
      'pending and never stamped: nothing to resume',
      { verdict: 5, owner: null, liveness: null, code: 'no-nonce' },
      { driverPane: 'op-x' },
      { refuse: 'it is pending and never had a session id (its spawned session op-x is gone): nothing to resume; spawn it again' },
    ],
    ['an invalid task file: the judge says why', { verdict: 5, owner: null, liveness: null, code: 'task-invalid', reason: 'task x: bad JSON' }, {}, { refuse: 'task x: bad JSON' }],
  ])('%s', (_, d, task, want) => {
    expect(restoreTarget({ slug: 'x', driverSid: '', ...task }, decision(d))).toEqual(want);
  });
});

describe('paneForRestore', () => {
  const read = (over: Partial<SessionPaneRead>, pane: Partial<NonNullable<SessionPaneRead['pane']>> = {}): SessionPaneRead => ({
    exists: true,
    task: '',
    nonce: '',
    stamp: '',
    pane: { id: '%7', dead: false, command: 'bash', path: '/w', ...pane },
    ...over,
  });
  const env = { SHELL: '/usr/bin/fish' };
  it.each<[string, SessionPaneRead, boolean, object]>([
    ['no session: a new one', { exists: false, task: '', nonce: '', stamp: '', pane: null }, false, { pane: null }],
    ["tmux-resurrect's shell in the task's directory", read({}), true, { pane: '%7' }],
    ['a login shell, and the user\'s $SHELL', read({}, { command: '-fish' }), true, { pane: '%7' }],
    ["the task's own session, its agent's pane dead", read({ task: 'x', stamp: SID }, { dead: true, command: 'claude' }), false, { pane: '%7' }],
    ["the task's own session, a shell left", read({ task: 'x' }), false, { pane: '%7' }],
    ['a shell elsewhere', read({}, { path: '/tmp' }), false, { refuse: "tmux session op-x is taken by another session (a shell in /tmp, not in the task's directory); rename or close it, then restore again" }],
    ['a program', read({}, { command: 'vim' }), true, { refuse: 'tmux session op-x is taken by another session (it runs vim); rename or close it, then restore again' }],
    ['another task\'s session', read({ task: 'other' }), true, { refuse: 'tmux session op-x is taken by another session (bound to task "other")' }],
    ['a stamped agent of no task', read({ stamp: SID }), true, { refuse: `tmux session op-x is taken by another session (it carries the stamp of agent ${SID})` }],
  ])('%s', (_, r, inDir, want) => {
    expect(paneForRestore('op-x', 'x', r, inDir, env)).toEqual(want);
  });
});
