// The wake plan (src/fleet/plan.ts): what a wake computes again, decided in one place.
import { describe, expect, it } from 'vitest';
import { planWake } from '../../src/fleet/plan';
import type { SessionSnap, TmuxSnapshot } from '../../src/tmux/snapshot';
import { sessionSnap } from '../helpers/snapshot';

const session = (name: string, stamp = ''): SessionSnap => sessionSnap(name, { stamp });
const snap = (sessions: SessionSnap[]): TmuxSnapshot => ({ sessions, panes: sessions.map((s, i) => ({ session: s.name, id: `%${i}`, pid: String(100 + i), window: `@${i}`, job: '', title: '', active: '1', tty: '' })), clients: [], config: {} });
const many = (n: number, stampOf = (_i: number) => '') => snap(Array.from({ length: n }, (_, i) => session(`s${i}`, stampOf(i))));

const before = many(40);
const last = { snapshot: before };
const touched = new Set(['a']);

describe('planWake', () => {
  it.each([
    ['the first wake', { registryOnly: false }, touched, null, before, 'full'],
    ['a recheck of the proof', { registryOnly: true, recheck: true }, touched, last, before, 'full'],
    ['every row judged again (the load found a task file added or removed)', { registryOnly: true }, null, last, before, 'full'],
    ['rows changed, the same snapshot', { registryOnly: true }, touched, last, before, 'rows'],
    ['a task file changed, the same snapshot', { registryOnly: false }, touched, last, before, 'full'],
    ['a new snapshot, one session stamped', { registryOnly: false }, touched, last, many(40, (i) => (i === 3 ? 'sid' : '')), 'tmux'],
    ['a new snapshot, rows changed too', { registryOnly: true }, touched, last, many(40, (i) => (i === 3 ? 'sid' : '')), 'tmux'],
    ['a new snapshot, ten of forty changed (over a quarter)', { registryOnly: false }, touched, last, many(40, (i) => (i < 11 ? 'sid' : '')), 'full'],
    ['a new snapshot, eight of ten changed (8 at least)', { registryOnly: false }, touched, { snapshot: many(10) }, many(10, (i) => (i < 8 ? 'sid' : '')), 'tmux'],
  ] as const)('%s: %s', (_what, hint, t, l, now, mode) => {
    const plan = planWake(hint, t, l, now);
    expect(plan.mode).toBe(mode);
    if (plan.mode === 'tmux') expect(plan.diff.changed.size).toBeGreaterThan(0);
    if (plan.mode !== 'full') expect(plan.base).toBe(l);
  });
});
