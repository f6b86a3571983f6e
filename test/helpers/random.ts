// The one seeded generator of the tests that draw random cases: the same seed
// gives the same cases, so a failure is replayed from the seed it names.
// mulberry32: 32 bits of state, fast, evenly spread; not for secrets.

/** A number in [0, 1) per call, with the draws the tests make of it. */
export interface Random {
  (): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One of xs (not empty). */
  pick<T>(xs: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
}

export function prng(seed: number): Random {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return Object.assign(next, {
    int,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)] as T,
    chance: (p: number) => next() < p,
  });
}
