import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from '../../src/tasks/parse';

// V8 names the position for some JSON syntax errors; where it does, ours must agree.
function v8Position(text: string): number | null {
  try {
    JSON.parse(text);
    return -1;
  } catch (err) {
    const m = /position (\d+)/.exec((err as Error).message);
    return m ? Number(m[1]) : null;
  }
}

describe('jsonErrorOffset', () => {
  const cases: [string, number][] = [
    ['{"a":1}', -1],
    [' [1, -2.5e+3, "x\\u00e9\\n", true, false, null, {}] ', -1],
    ['"str"', -1],
    ['', 0],
    ['{"slug": }', 9],
    ['nope', 1],
    ['{"a":1}x', 7],
    ['{"a": 1', 7],
    ['{"a" 1}', 5],
    ['{a:1}', 1],
    ['[1,]', 3],
    ['[1 2]', 3],
    ['{"a":tru}', 8],
    ['{"a":"x', 7],
    ['{"a":"\t"}', 6],
    ['{"a":"\\q"}', 7],
    ['01', 1],
    ['-', 1],
    ['[2.]', 3],
    ['1e', 2],
    ['1e+x', 3],
    ['-x', 1],
    ['{\n  "slug": "a",\n  "driverSid": tru', 35],
  ];
  it.each(cases)('%j -> %d', (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
    const v8 = v8Position(text);
    if (v8 !== null) expect(v8).toBe(offset);
  });

  it('agrees with JSON.parse on validity for every prefix of a real task file', () => {
    const text = JSON.stringify({ slug: 'a', n: [1, 2.5, -3e2, 1e21, -0.5e-7], s: 'q"\\u', o: { t: true, f: false, z: null } }, null, 2);
    for (let k = 0; k <= text.length; k++) {
      const prefix = text.slice(0, k);
      const v8 = v8Position(prefix);
      const ours = jsonErrorOffset(prefix);
      if (v8 === -1) expect(ours).toBe(-1);
      else {
        expect(ours).toBeGreaterThanOrEqual(0);
        if (v8 !== null) expect(ours).toBe(v8);
      }
    }
  });
});
