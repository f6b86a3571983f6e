// The index a wake uses to find the session ids whose chains a change touches.
import { describe, expect, it } from 'vitest';
import { ChainKeyIndex } from '../../src/fleet/update';

const sorted = (s: Iterable<string>) => [...s].sort();

describe('ChainKeyIndex', () => {
  const cases: { name: string; build: (ix: ChainKeyIndex) => void; touched: string[]; want: string[] }[] = [
    { name: 'a session id touched by its own row', build: (ix) => ix.set('a', ['a']), touched: ['a'], want: ['a'] },
    {
      name: 'a parked job touches the tab that parked on it',
      build: (ix) => {
        ix.set('tab', ['tab', 'job-sid', 'e9e4ae8e']);
        ix.set('other', ['other']);
      },
      touched: ['e9e4ae8e'],
      want: ['tab'],
    },
    {
      name: 'two chains through one job: both',
      build: (ix) => {
        ix.set('a', ['a', 'j']);
        ix.set('b', ['b', 'j']);
      },
      touched: ['j'],
      want: ['a', 'b'],
    },
    {
      name: 'a chain set again forgets the ids it no longer holds',
      build: (ix) => {
        ix.set('a', ['a', 'old-job']);
        ix.set('a', ['a']);
      },
      touched: ['old-job'],
      want: [],
    },
    { name: 'an id nobody holds', build: (ix) => ix.set('a', ['a']), touched: ['z'], want: [] },
    {
      name: 'cleared',
      build: (ix) => {
        ix.set('a', ['a']);
        ix.clear();
      },
      touched: ['a'],
      want: [],
    },
  ];
  it.each(cases)('$name', ({ build, touched, want }) => {
    const ix = new ChainKeyIndex();
    build(ix);
    expect(sorted(ix.touchedBy(touched))).toEqual(want);
  });

  it('answers what a pass over every chain would', () => {
    const ix = new ChainKeyIndex();
    const chains = new Map<string, string[]>();
    for (let i = 0; i < 300; i++) {
      const keys = [`s${i}`, `s${(i * 7) % 300}`, `j${i % 13}`];
      chains.set(`s${i}`, keys);
      ix.set(`s${i}`, keys);
    }
    for (let i = 0; i < 300; i += 3) {
      const keys = [`s${i}`, `j${(i + 5) % 17}`];
      chains.set(`s${i}`, keys);
      ix.set(`s${i}`, keys);
    }
    for (const touched of [['j3'], ['s7', 'j16'], ['s299'], []]) {
      const scan = [...chains].filter(([, keys]) => keys.some((k) => touched.includes(k))).map(([sid]) => sid);
      expect(sorted(ix.touchedBy(touched))).toEqual(sorted(scan));
      expect(ix.get('s3')).toEqual(chains.get('s3'));
    }
  });
});
