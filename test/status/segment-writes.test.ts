// What tmux holds of the segments (docs/status.md#incremental-wakes): the
// snapshot as read, the supervisor's writes laid over it; the snapshot itself
// is never changed, so what is cached beside it stays true.
import { describe, expect, it } from 'vitest';
import { diffSegments, HeldSegments, SEGMENT_OPTIONS, type SegmentOption } from '../../src/status/segment-writes';
import type { OptionChange } from '../../src/tmux/apply';
import type { TmuxSnapshot } from '../../src/tmux/snapshot';
import { sessionSnap } from '../helpers/snapshot';

const session = sessionSnap;

/** A snapshot frozen to its leaves: any write into it throws. */
function frozenSnapshot(): TmuxSnapshot {
  const snap: TmuxSnapshot = { sessions: [session('a', { agent: 'busy', unseen: '1 done' }), session('b')], clients: [], panes: [], config: {} };
  for (const s of snap.sessions) Object.freeze(s);
  Object.freeze(snap.sessions);
  return Object.freeze(snap);
}

const valuesOf = (a: Partial<Record<SegmentOption, string>>, b: Partial<Record<SegmentOption, string>> = {}) => {
  const full = (v: Partial<Record<SegmentOption, string>>) => Object.fromEntries(SEGMENT_OPTIONS.map((o) => [o, v[o] ?? ''])) as Record<SegmentOption, string>;
  return new Map([
    ['a', full(a)],
    ['b', full(b)],
  ]);
};

const text = (changes: readonly OptionChange[]) => changes.map((c) => `${c.session} ${c.option}=${c.value}`);

describe('HeldSegments', () => {
  const cases: [string, OptionChange[], ReturnType<typeof valuesOf>, string[]][] = [
    ['nothing written, the same values: nothing to write', [], valuesOf({ '@fleet-agent': 'busy', '@fleet-unseen': '1 done' }), []],
    ['nothing written, a new value', [], valuesOf({ '@fleet-agent': 'idle', '@fleet-unseen': '1 done' }), ['a @fleet-agent=idle']],
    ['written since the read, wanted again: nothing to write', [{ session: 'a', option: '@fleet-agent', value: 'idle' }], valuesOf({ '@fleet-agent': 'idle', '@fleet-unseen': '1 done' }), []],
    ['written since the read, the read value wanted back: written', [{ session: 'a', option: '@fleet-agent', value: 'idle' }], valuesOf({ '@fleet-agent': 'busy', '@fleet-unseen': '1 done' }), ['a @fleet-agent=busy']],
    ['a mark cleared since the read stays cleared', [{ session: 'a', option: '@fleet-unseen', value: '' }], valuesOf({ '@fleet-agent': 'busy' }), []],
    [
      "a window's and the global option are not a session's",
      [
        { session: 'b', window: '@1', option: '@fleet-agent', value: 'w' },
        { session: '', global: true, option: '@fleet-attention', value: '1' },
      ],
      valuesOf({ '@fleet-agent': 'busy', '@fleet-unseen': '1 done' }, { '@fleet-agent': 'w' }),
      ['b @fleet-agent=w'],
    ],
  ];

  it.each(cases)('%s', (_name, written, want, expected) => {
    const snapshot = frozenSnapshot();
    const copy = structuredClone(snapshot);
    const held = new HeldSegments(snapshot);
    held.record(written);
    expect(text(diffSegments(held, want))).toEqual(expected);
    // Only the sessions named are compared.
    expect(text(diffSegments(held, want, new Set(['b'])))).toEqual(expected.filter((c) => c.startsWith('b ')));
    // The snapshot is as it was read.
    expect(snapshot).toEqual(copy);
  });

  it('what was written is told apart from what was read', () => {
    const held = new HeldSegments(frozenSnapshot());
    held.record([{ session: 'a', option: '@fleet-unseen', value: '' }]);
    expect(held.wrote('a', '@fleet-unseen')).toBe('');
    expect(held.wrote('a', '@fleet-agent')).toBeUndefined();
    expect(held.value(held.snapshot.sessions[0]!, '@fleet-agent')).toBe('busy');
    expect(held.value(held.snapshot.sessions[0]!, '@fleet-unseen')).toBe('');
  });
});
