// Long JSON strings cut before parsing (src/registry/compact-json.ts): what
// JSON.parse gives from the cut text is what a reader that keeps KEEP
// characters keeps from the whole text, and a text that would not parse still
// does not. Tables, then random texts (escapes, every UTF-8 length, invalid
// bytes, surrogates written as escapes) against the whole parse.
import { describe, expect, it } from 'vitest';
import { compactJsonText } from '../../src/registry/compact-json';
import { prng } from '../helpers/random';

const KEEP = 16;
/** What the reader keeps of a string (src/registry/reader.ts keptString, at KEEP). */
const kept = (v: string) => (v.length > KEEP ? `${v.slice(0, KEEP - 1)}…` : v);
/** A parsed value with every string as the reader keeps it. */
function keptValue(v: unknown): unknown {
  if (typeof v === 'string') return kept(v);
  if (Array.isArray(v)) return v.map(keptValue);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [kept(k), keptValue(x)]));
  return v;
}
const parse = (text: string): unknown => {
  try {
    return { ok: keptValue(JSON.parse(text)) };
  } catch {
    return 'fails';
  }
};
const same = (bytes: Buffer) => expect(parse(compactJsonText(bytes, KEEP))).toEqual(parse(bytes.toString('utf8')));

describe('compactJsonText', () => {
  const long = 'x'.repeat(100);
  const cases: [string, string | Buffer][] = [
    ['no long string: the text as it is', '{"pid":1,"sessionId":"abc","n":[1,2,3]}'],
    ['a long value', `{"pid":1,"waitingFor":"${long}","status":"idle"}`],
    ['a long key', `{"${long}":1,"pid":2}`],
    ['long strings in an array and a nested object', `{"a":["${long}","s",{"b":"${long}"}]}`],
    ['escapes on both sides of the cut', `{"a":"${'\\n\\"\\u00e9\\\\'.repeat(20)}"}`],
    ['multibyte characters on both sides of the cut', `{"a":"${'é€😀'.repeat(20)}"}`],
    ['a surrogate pair written as escapes across the cut', `{"a":"${'\\ud83d\\ude00'.repeat(20)}"}`],
    ['a raw control character past the cut: fails, as the whole does', Buffer.from(`{"a":"${long}\u0001${long}"}`)],
    ['an invalid escape past the cut: fails', `{"a":"${long}\\x${long}"}`],
    ['a short \\u escape past the cut: fails', `{"a":"${long}\\u12G4"}`],
    ['a string not closed (a file caught mid-write): fails', `{"a":"${long}`],
    ['invalid UTF-8 bytes on both sides of the cut', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x41, 0xf0, 0x9f, 0x22 - 0x22 + 0x41, 0xc3]), Buffer.from(long), Buffer.from([0xff, 0xf0, 0x80]), Buffer.from('"}')])],
    ['an invalid lead byte just before a quote: the quote still closes the string', Buffer.concat([Buffer.from(`{"a":"${long}`), Buffer.from([0xe2]), Buffer.from('","b":1}')])],
  ];
  it.each(cases)('%s', (_what, text) => same(Buffer.isBuffer(text) ? text : Buffer.from(text)));

  it('a long string is cut: the text to parse is short, whatever the string held', () => {
    const text = compactJsonText(Buffer.from(`{"pid":1,"blob":"${'y'.repeat(250_000)}","status":"busy"}`), KEEP);
    expect(text.length).toBeLessThan(100);
    expect(JSON.parse(text)).toMatchObject({ pid: 1, status: 'busy' });
  });

  it('random texts: the same kept values, the same failures', () => {
    const random = prng(7);
    const pick = random.pick;
    const pieces: Buffer[] = [
      ...['a', 'Z', ' ', '\\n', '\\"', '\\\\', '\\/', '\\u00e9', '\\ud83d', '\\ude00', 'é', '€', '😀', '"', '\\q', '\\u12'].map((s) => Buffer.from(s)),
      Buffer.from([0xff]),
      Buffer.from([0x80]),
      Buffer.from([0xe2, 0x82]),
      Buffer.from([0x01]),
    ];
    const str = () => {
      const parts: Buffer[] = [Buffer.from('"')];
      const n = Math.floor(random() * 60);
      // Mostly valid: the rarer pieces make a text that fails, which must fail both ways.
      for (let k = 0; k < n; k++) parts.push(random() < 0.96 ? pick(pieces.slice(0, 13)) : pick(pieces));
      parts.push(Buffer.from('"'));
      return Buffer.concat(parts);
    };
    let failed = 0;
    for (let t = 0; t < 2000; t++) {
      const fields: Buffer[] = [];
      const m = 1 + Math.floor(random() * 4);
      for (let k = 0; k < m; k++) fields.push(Buffer.concat([str(), Buffer.from(':'), random() < 0.7 ? str() : Buffer.from(`[${str()},1]`)]));
      const text = Buffer.concat([Buffer.from('{'), ...fields.flatMap((f, k) => (k === 0 ? [f] : [Buffer.from(','), f])), Buffer.from('}')]);
      if (parse(text.toString('utf8')) === 'fails') failed++;
      same(text);
    }
    // Both kinds were met.
    expect(failed).toBeGreaterThan(100);
    expect(failed).toBeLessThan(1900);
  });
});
