// The tests' seeded generator (test/helpers/random.ts): the same seed draws the
// same cases, and every draw stays in its range and reaches all of it.
import { describe, expect, it } from 'vitest';
import { prng } from './random';

describe('prng', () => {
  it('draws the same numbers from the same seed, and others from another', () => {
    const a = prng(42);
    const b = prng(42);
    const drawn = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(drawn);
    expect(Array.from({ length: 100 }, prng(43))).not.toEqual(drawn);
  });

  it('numbers in [0, 1); int, pick and chance within their ranges, every value reached', () => {
    const r = prng(7);
    const ints = new Set<number>();
    const picked = new Set<string>();
    let heads = 0;
    for (let i = 0; i < 2000; i++) {
      const x = r();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      const n = r.int(10);
      expect(Number.isInteger(n) && n >= 0 && n < 10).toBe(true);
      ints.add(n);
      picked.add(r.pick(['a', 'b', 'c']));
      if (r.chance(0.25)) heads++;
    }
    expect(ints.size).toBe(10);
    expect([...picked].sort()).toEqual(['a', 'b', 'c']);
    // 500 expected: far from both 0 and 2000 whatever the seed's luck.
    expect(heads).toBeGreaterThan(350);
    expect(heads).toBeLessThan(650);
  });
});
