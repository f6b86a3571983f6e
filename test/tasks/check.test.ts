// The fast bundle's validator of task.json (src/tasks/check-plain.ts) against
// zod's (src/tasks/check.ts), both built from one field table: on every file
// here, good and bad, the same verdict, the same first problem worded the
// same way, and the same record (its keys in the same order, nothing on its
// prototype). docs/tasks.md#validation.
import { describe, expect, it } from 'vitest';
import { TASK_FIELDS, type Checked, type Field } from '../../src/tasks/schema';
import { checkTask as checkWithZod } from '../../src/tasks/check';
import { checkTask as checkPlain } from '../../src/tasks/check-plain';

const NONCE = '0123456789abcdef0123456789abcdef';
const HOSTILE = ['$(touch /tmp/pwned)', '`id`', '#(echo hi)', '#[fg=red]', 'a;b', "it's \"quoted\"", 'line\nbreak', 'nul\u0000byte', '\u202eevil', 'é', '🦊', ' ', '', 'x'.repeat(100_000), '../../etc/passwd', '=op-a:'];

/** JSON texts: parsed as the store parses them, so `__proto__` stays an own key. */
const texts: string[] = [
  // Not records.
  '[]', 'null', '"task"', '3', 'true', '{}',
  // Good records, some with keys this project does not know.
  '{"slug":"a"}',
  '{"slug":"a","driverSid":"","driverPane":"op-a","spawnNonce":"' + NONCE + '"}',
  '{"zeta":1,"driverSid":"x","slug":"a","alpha":[1,{"b":null}]}',
  '{"slug":"a","acceptance":[],"handovers":[]}',
  '{"slug":"a","acceptance":[{"text":"t","addedBy":"l","addedAt":"now","weight":3}],"handovers":[{"from":"a","to":"b","at":"c","reason":"r","pane":"op-a","host":"box"}]}',
  '{"slug":"a","driverPid":1,"driverEpoch":0}',
  '{"slug":"a","driverPid":9007199254740991,"driverEpoch":9007199254740991}',
  '{"slug":"a","driverEpoch":-0}',
  '{"slug":"a","driverPid":1e2,"driverEpoch":2.0}',
  // Hostile keys: never on the record's prototype.
  '{"__proto__":{"slug":"x","polluted":1},"slug":"a"}',
  '{"slug":"a","acceptance":[{"__proto__":{"x":1},"text":"t","addedBy":"l","addedAt":"n"}]}',
  '{"slug":"a","constructor":{"name":"x"},"toString":"no","hasOwnProperty":1,"valueOf":null}',
  '{"slug":"a","__proto__":null}',
  '{"slug":"a","1":"one","0":"zero"}',
  '{"slug":"a","slug":5}',
  '{"slug":5,"slug":"a"}',
  // Numbers a file can hold that are not whole, safe, or in range.
  '{"slug":"a","driverPid":0}', '{"slug":"a","driverPid":-0}', '{"slug":"a","driverPid":-1}', '{"slug":"a","driverPid":1.5}',
  '{"slug":"a","driverPid":1e400}', '{"slug":"a","driverPid":-1e400}', '{"slug":"a","driverPid":9007199254740992}',
  '{"slug":"a","driverPid":-9007199254740992}', '{"slug":"a","driverPid":1e-400}',
  '{"slug":"a","driverEpoch":-1}', '{"slug":"a","driverEpoch":0.5}', '{"slug":"a","driverEpoch":1e400}', '{"slug":"a","driverEpoch":-1e300}',
  // Several problems: the first in the table's order is the one named.
  '{"driverPid":-1,"driverSid":5}', '{"slug":"a","handovers":5,"driverSid":5}', '{"slug":"a","acceptance":[{"text":"t","addedBy":"l","addedAt":"n"},{"text":1},null]}',
  // Lists and their items.
  '{"slug":"a","acceptance":{}}', '{"slug":"a","acceptance":"t"}', '{"slug":"a","acceptance":[1]}', '{"slug":"a","acceptance":[[]]}',
  '{"slug":"a","acceptance":[{"addedBy":"x","addedAt":"y"}]}', '{"slug":"a","handovers":[{"from":"a","to":"b","at":"c"}]}',
  '{"slug":"a","handovers":[{"from":"a","to":"b","at":"c","reason":"r","pane":1}]}', '{"slug":"a","handovers":[null]}',
  // Nonces.
  `{"slug":"a","spawnNonce":"${NONCE.toUpperCase()}"}`, '{"slug":"a","spawnNonce":""}', `{"slug":"a","spawnNonce":"${NONCE}\\n"}`, '{"slug":"a","spawnNonce":5}',
];

/** Every field of the table given each wrong kind of value, and left out. */
const WRONG: unknown[] = [null, true, 0, -1, 1.5, 'x', [], {}, [{}], ['x']];
function fieldCases(): unknown[] {
  const out: unknown[] = [];
  for (const [key, f] of Object.entries(TASK_FIELDS) as [string, Field][]) {
    for (const v of WRONG) out.push({ slug: 'a', [key]: v });
    if (!f.optional) out.push({ ...Object.fromEntries(Object.keys(TASK_FIELDS).filter((k) => k !== key).map((k) => [k, undefined])), driverSid: 'x' });
  }
  for (const s of HOSTILE) {
    out.push({ slug: s, driverSid: s, label: s, spawnNonce: s, [s]: s });
    out.push({ slug: 'a', acceptance: [{ text: s, addedBy: s, addedAt: s, [s]: [s] }], handovers: [{ from: s, to: s, at: s, reason: s, pane: s }] });
  }
  return out;
}

/** What a result says, its record's key order and prototypes included. */
function shape(r: Checked): unknown {
  if (!r.ok) return { ok: false, path: r.path, message: r.message };
  const protos: unknown[] = [];
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    protos.push(Object.getPrototypeOf(v) === (Array.isArray(v) ? Array.prototype : Object.prototype));
    for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
  };
  walk(r.task);
  return { ok: true, keys: JSON.stringify(r.task), record: r.task, protos };
}

describe('the plain validator answers as zod does', () => {
  it.each(texts.map((t) => [t.length > 120 ? `${t.slice(0, 120)}…` : t, t]))('%s', (_label, text) => {
    const raw: unknown = JSON.parse(text);
    expect(shape(checkPlain(raw))).toEqual(shape(checkWithZod(raw)));
  });

  it.each(fieldCases().map((raw, i) => [i, raw]))('field case %i', (_i, raw) => {
    // Through JSON, as a file would hold it (undefined keys drop out: a field left out).
    const fromFile: unknown = JSON.parse(JSON.stringify(raw));
    expect(shape(checkPlain(fromFile))).toEqual(shape(checkWithZod(fromFile)));
  });

  it('names a problem of each kind as zod does (checked, not assumed equal by both being wrong)', () => {
    expect(checkPlain({ slug: 3 })).toEqual({ ok: false, path: ['slug'], message: 'Invalid input: expected string, received number' });
    expect(checkPlain({})).toEqual({ ok: false, path: ['slug'], message: 'Invalid input: expected string, received undefined' });
    expect(checkPlain([])).toEqual({ ok: false, path: [], message: 'Invalid input: expected object, received array' });
    expect(checkPlain({ slug: 'a', driverPid: 0 })).toEqual({ ok: false, path: ['driverPid'], message: 'Too small: expected number to be >0' });
    expect(checkPlain({ slug: 'a', spawnNonce: 'X' })).toEqual({ ok: false, path: ['spawnNonce'], message: 'must be 32 lowercase hex characters' });
    expect(checkPlain({ slug: 'a', acceptance: [{ text: 't', addedBy: 'b' }] })).toEqual({
      ok: false,
      path: ['acceptance', 0, 'addedAt'],
      message: 'Invalid input: expected string, received undefined',
    });
  });
});
