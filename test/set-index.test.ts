import { describe, expect, it } from 'vitest';
import { addTo, removeFrom } from '../src/set-index';

describe('set index', () => {
  it.each([
    ['add to a new key', [['+', 'a', 1]], { a: [1] }],
    ['add twice: one value', [['+', 'a', 1], ['+', 'a', 1]], { a: [1] }],
    ['two values of a key', [['+', 'a', 1], ['+', 'a', 2]], { a: [1, 2] }],
    ['the last value removed: no empty set left', [['+', 'a', 1], ['-', 'a', 1]], {}],
    ['one of two removed', [['+', 'a', 1], ['+', 'a', 2], ['-', 'a', 1]], { a: [2] }],
    ['remove from a missing key: nothing', [['-', 'b', 1]], {}],
    ['remove a value not held: the set stays', [['+', 'a', 1], ['-', 'a', 3]], { a: [1] }],
  ] as const)('%s', (_what, steps, want) => {
    const index = new Map<string, Set<number>>();
    for (const [op, key, value] of steps) (op === '+' ? addTo : removeFrom)(index, key, value);
    expect(Object.fromEntries([...index].map(([k, v]) => [k, [...v]]))).toEqual(want);
  });
});
