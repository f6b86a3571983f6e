// The snapshot diff a tmux wake starts from (docs/status.md#incremental-wakes):
// which sessions changed, which are gone, what they were.
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/fleet/snapshot-diff';
import type { PaneSnap, SessionSnap, TmuxSnapshot } from '../../src/tmux/snapshot';
import { paneSnap, sessionSnap } from '../helpers/snapshot';

const session = sessionSnap;
const pane = paneSnap;
const snap = (sessions: SessionSnap[], panes: PaneSnap[], config: Record<string, string> = { interval: '2' }): TmuxSnapshot => ({ sessions, clients: [], panes, config });

const base = snap([session('a', { stamp: 'S1' }), session('b'), session('c', { task: 't' })], [pane('a', '%1', '10'), pane('b', '%2', '20'), pane('c', '%3', '30')]);

describe('diffSnapshots', () => {
  const cases: [string, TmuxSnapshot, string[], string[]][] = [
    ['nothing changed', structuredClone(base), [], []],
    ['a segment value written (an output, not an input)', snap([session('a', { stamp: 'S1', owner: 'x', hop: 'y' }), session('b'), session('c', { task: 't' })], base.panes), [], []],
    ['a rename: one gone, one new', snap([session('a', { stamp: 'S1' }), session('c', { task: 't' }), session('z')], [pane('a', '%1', '10'), pane('z', '%2', '20'), pane('c', '%3', '30')]), ['z'], ['b']],
    ['a session closed', snap([session('a', { stamp: 'S1' }), session('c', { task: 't' })], [pane('a', '%1', '10'), pane('c', '%3', '30')]), [], ['b']],
    ['a session created', snap([...base.sessions, session('d')], [...base.panes, pane('d', '%4', '40')]), ['d'], []],
    ['a stamp set', snap([session('a', { stamp: 'S1' }), session('b', { stamp: 'S2' }), session('c', { task: 't' })], base.panes), ['b'], []],
    ['a nonce, a task, a recorded process, the attach count', snap([session('a', { stamp: 'S1', nonce: 'n' }), session('b', { attached: '1' }), session('c', { task: 'u', agentProc: 'claude 1 2' })], base.panes), ['a', 'b', 'c'], []],
    ['a pane respawned (a new first process)', snap(base.sessions, [pane('a', '%1', '10'), pane('b', '%2', '21'), pane('c', '%3', '30')]), ['b'], []],
    ['a window linked into another session', snap(base.sessions, [...base.panes, pane('c', '%1', '10')]), ['c'], []],
    ['a window opened for a job', snap(base.sessions, [pane('a', '%1', '10'), pane('b', '%2', '20'), pane('c', '%3', '30', { job: 'a1b2c3d4' })]), ['c'], []],
  ];
  it.each(cases)('%s', (_what, after, changed, removed) => {
    const diff = diffSnapshots(base, after);
    expect(diff && [[...diff.changed].sort(), [...diff.removed].sort()]).toEqual([changed, removed]);
    // What the changed and removed sessions were (new ones were nothing).
    expect(diff && [...diff.before.keys()].sort()).toEqual([...changed, ...removed].filter((n) => base.sessions.some((s) => s.name === n)).sort());
  });

  it('a rename is told from a close and a create: the same marks and the same panes under a new name', () => {
    const renamed = snap([session('a', { stamp: 'S1' }), session('c', { task: 't' }), session('z')], [pane('a', '%1', '10'), pane('z', '%2', '20'), pane('c', '%3', '30')]);
    expect([...diffSnapshots(base, renamed)!.renamed]).toEqual([['z', 'b']]);
    // Renamed and stamped in one go, or a new session over the closed one's pane ids with other processes: no rename.
    const stamped = snap([session('a', { stamp: 'S1' }), session('c', { task: 't' }), session('z', { stamp: 'S9' })], renamed.panes);
    expect(diffSnapshots(base, stamped)!.renamed.size).toBe(0);
    const other = snap(renamed.sessions, [pane('a', '%1', '10'), pane('z', '%2', '99'), pane('c', '%3', '30')]);
    expect(diffSnapshots(base, other)!.renamed.size).toBe(0);
  });

  it('null when what every session shows changed (a style option, the poll interval)', () => {
    expect(diffSnapshots(base, { ...structuredClone(base), config: { interval: '5' } })).toBeNull();
    expect(diffSnapshots(base, { ...structuredClone(base), config: { interval: '2', 'style-owner': 'fg=red' } })).toBeNull();
  });
});
