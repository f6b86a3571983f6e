import { describe, expect, it } from 'vitest';
import { TaskFileError } from '../../src/errors';
import { parseTaskText, serializeTask, type Task } from '../../src/tasks';
import { checkTask } from '../../src/tasks/check';

const TaskSchema = {
  parse: (raw: unknown): Task => {
    const r = checkTask(raw);
    if (!r.ok) throw new Error(`${r.path.join('.')}: ${r.message}`);
    return r.task;
  },
};

const NONCE = 'a'.repeat(32);

describe('serializeTask', () => {
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['pending (driverSid "")', { slug: 'a', driverSid: '', spawnNonce: NONCE }, true],
    ['pending (no owner key)', { slug: 'a', spawnNonce: NONCE }, true],
    ['owned (driverSid)', { slug: 'a', driverSid: 'sid-1', spawnNonce: NONCE }, false],
    ['owned (operatorSid only)', { slug: 'a', operatorSid: 'sid-o', spawnNonce: NONCE }, false],
    ['pending (driverSid "" beats operatorSid)', { slug: 'a', driverSid: '', operatorSid: 'sid-o', spawnNonce: NONCE }, true],
  ];

  it.each(cases)('%s: keeps the nonce = %s', (_what, raw, keeps) => {
    const text = serializeTask(raw as Task);
    const back = JSON.parse(text) as Record<string, unknown>;
    expect('spawnNonce' in back).toBe(keeps);
    // Every other key is kept, in order.
    const expected = Object.keys(raw).filter((k) => keeps || k !== 'spawnNonce');
    expect(Object.keys(back)).toEqual(expected);
    for (const k of expected) expect(back[k]).toEqual(raw[k]);
  });

  it('keeps every other key, known or unknown, nested, in its order', () => {
    const raw = {
      zz: 1,
      slug: 'fix-it',
      driverSid: 'sid-1',
      spawnNonce: NONCE,
      driverPane: 'op-fix-it',
      nested: { b: 1, a: [{ y: 1, x: 2 }] },
      acceptance: [{ text: 't', addedBy: 'l', addedAt: 'now', extra: true }],
      handovers: [{ from: 'a', to: 'b', at: 'now', reason: 'r', note: 'kept' }],
      label: 'quote " and $(x) ; #(y)',
      aa: null,
    };
    // The serializer keeps the order it is given; the schema keeps every key (known keys first).
    const { spawnNonce: _dropped, ...rest } = raw;
    expect(serializeTask(raw as Task)).toBe(`${JSON.stringify(rest, null, 2)}\n`);
    const viaSchema = JSON.parse(serializeTask(TaskSchema.parse(raw))) as Record<string, unknown>;
    expect(viaSchema).toEqual(rest);
    expect(Object.keys(viaSchema).sort()).toEqual(Object.keys(rest).sort());
  });

  it('does not change the task it is given', () => {
    const t: Task = TaskSchema.parse({ slug: 'a', driverSid: 'sid', spawnNonce: NONCE });
    serializeTask(t);
    expect(t.spawnNonce).toBe(NONCE);
  });

  it('is stable: serialize(parse(serialize(parse(x)))) is serialize(parse(x))', () => {
    const raw = { b: 1, slug: 'a', driverSid: 'sid', spawnNonce: NONCE, a: { z: 1, y: 2 } };
    const first = serializeTask(TaskSchema.parse(raw));
    expect(serializeTask(parseTaskText(first, 'f'))).toBe(first);
  });

  it('round-trips through parseTaskText', () => {
    const raw = { slug: 'a', driverSid: '', spawnNonce: NONCE, other: { k: [1, 2] } };
    const text = serializeTask(TaskSchema.parse(raw));
    expect(parseTaskText(text, '/x/task.json')).toEqual(raw);
    expect(text.endsWith('}\n')).toBe(true);
  });
});

describe('parseTaskText errors', () => {
  const file = '/home/u/.local/state/tmux-fleet/tasks/a/task.json';
  const cases: [string, string, RegExp][] = [
    ['empty file', '', /not valid JSON/],
    ['truncated object', '{"slug": "a"', /not valid JSON.*position 12/],
    ['missing value', '{"slug": }', /not valid JSON.*position 9/],
    ['bare word', 'nope', /not valid JSON.*position 1/],
    ['trailing garbage', '{"slug":"a"}x', /not valid JSON.*position 12/],
    ['torn write on line 3', '{\n  "slug": "a",\n  "driverSid": tru', /not valid JSON.*position/],
    ['slug missing', '{"driverSid": ""}', /invalid task record at slug:/],
    ['bad nonce', `{"slug":"a","spawnNonce":"XYZ"}`, /invalid task record at spawnNonce: must be 32 lowercase hex/],
    ['bad acceptance item', '{"slug":"a","acceptance":[{"text":1,"addedBy":"x","addedAt":"y"}]}', /invalid task record at acceptance\.0\.text:/],
    ['an array', '[]', /invalid task record at \(top level\)/],
  ];
  it.each(cases)('%s: names the file and the problem', (_what, text, problem) => {
    let caught: unknown;
    try {
      parseTaskText(text, file);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TaskFileError);
    const err = caught as TaskFileError;
    expect(err.file).toBe(file);
    expect(err.message.startsWith(`${file}: `)).toBe(true);
    expect(err.problem).toMatch(problem);
    expect(err.exitCode).toBe(1);
    expect(err.message).not.toContain('\n');
  });
});

describe('serializeTask with the text it was read from: what tmux-fleet does not own comes back byte for byte', () => {
  const NONCE2 = 'b'.repeat(32);
  const base = (extra: string) => `{\n  "slug": "u1",\n  "driverSid": "",\n  "spawnNonce": "${NONCE2}",${extra}\n  "createdAt": "2026-01-01T00:00:00.000Z"\n}\n`;
  const cases: [string, string, string[]][] = [
    ['a big integer', '\n  "big": 12345678901234567890,', ['"big": 12345678901234567890']],
    ['an exponent', '\n  "e": 1e2,', ['"e": 1e2']],
    ['a unicode escape, in key and value', '\n  "\\u00e9t\\u00e9": "caf\\u00e9",', ['"\\u00e9t\\u00e9": "caf\\u00e9"']],
    ['__proto__', '\n  "__proto__": {"driverSid": "EVIL"},', ['"__proto__": {"driverSid": "EVIL"}']],
    ['duplicate keys', '\n  "dup": 1,\n  "dup": 2,', ['"dup": 1', '"dup": 2']],
    ['a nested unknown value, formatted its own way', '\n  "deep": {"a" : [1,2 , {"b":12345678901234567890}]},', ['"deep": {"a" : [1,2 , {"b":12345678901234567890}]}']],
    [
      'an unknown key inside an acceptance item that stays while another is added',
      '\n  "acceptance": [{"text": "t", "addedBy": "l", "addedAt": "n", "n": 12345678901234567890}],',
      ['{"text": "t", "addedBy": "l", "addedAt": "n", "n": 12345678901234567890}'],
    ],
  ];

  it.each(cases)('%s', (_what, extra, kept) => {
    const text = base(extra);
    const read = parseTaskText(text, 'f');
    const next: Task = {
      ...read,
      driverSid: 'sid-new',
      updatedAt: '2026-02-02T00:00:00.000Z',
      acceptance: read.acceptance ? [...read.acceptance, { text: 'added', addedBy: 'x', addedAt: 'now' }] : undefined,
    };
    const out = serializeTask(next, text);
    for (const k of kept) expect(out).toContain(k);
    // Known keys are written anew: the owner, the stamp, no nonce once owned.
    expect(out).toContain('"driverSid": "sid-new"');
    expect(out).toContain('"updatedAt": "2026-02-02T00:00:00.000Z"');
    expect(out).not.toContain('spawnNonce');
    // The result is a valid record meaning what the caller asked for.
    expect(parseTaskText(out, 'f')).toEqual(parseTaskText(serializeTask(next), 'f'));
    expect(out.endsWith('}\n')).toBe(true);
  });

  it('an unchanged task comes back exactly as read', () => {
    const text = base('\n  "big": 12345678901234567890,\n  "dup": 1,\n  "dup": 2,');
    const read = parseTaskText(text, 'f');
    // The nonce is kept (still pending), the rest unchanged.
    expect(serializeTask(read, text)).toBe(text);
  });

  it('a key the caller removed or changed is removed or written anew', () => {
    const text = base('\n  "gone": 12345678901234567890,\n  "changed": 1e2,');
    const read = parseTaskText(text, 'f') as Record<string, unknown>;
    const { gone: _gone, ...rest } = read;
    const out = serializeTask({ ...(rest as Task), changed: 7 } as Task, text);
    expect(out).not.toContain('gone');
    expect(out).toContain('"changed": 7');
  });

  it('without a previous text (or with one that does not scan) it is JSON.stringify, as before', () => {
    const t = TaskSchema.parse({ slug: 'a', driverSid: 'sid', x: 1 });
    expect(serializeTask(t, 'not json')).toBe(`${JSON.stringify(t, null, 2)}\n`);
    expect(serializeTask(t, '[]')).toBe(`${JSON.stringify(t, null, 2)}\n`);
  });
});
