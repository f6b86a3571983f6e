import { describe, expect, it } from 'vitest';
import { NONCE_RE, isPending, ownerSid, type Checked, type Task } from '../../src/tasks';
import { checkTask as checkWithZod } from '../../src/tasks/check';
import { checkTask as checkPlain } from '../../src/tasks/check-plain';

const NONCE = '0123456789abcdef0123456789abcdef';

// Both validators built from the field table (src/tasks/schema.ts): zod's, and the fast bundle's plain one.
const VALIDATORS: [string, (raw: unknown) => Checked][] = [
  ['zod', checkWithZod],
  ['plain', checkPlain],
];

describe.each(VALIDATORS)('task schema (%s)', (_name, check) => {
  const TaskSchema = {
    safeParse: (raw: unknown) => {
      const r = check(raw);
      return r.ok ? { success: true as const, data: r.task } : { success: false as const, error: { issues: [{ path: r.path }] } };
    },
    parse: (raw: unknown): Task => {
      const r = check(raw);
      if (!r.ok) throw new Error(`${r.path.join('.')}: ${r.message}`);
      return r.task;
    },
  };

  it('keeps unknown keys at the top level, verbatim', () => {
    const raw = { slug: 'a', driverSid: '', futureKey: { deep: [1, 'two', null] }, counter: 7 };
    const t = TaskSchema.parse(raw) as Record<string, unknown>;
    expect(t.futureKey).toEqual({ deep: [1, 'two', null] });
    expect(t.counter).toBe(7);
  });

  it('keeps unknown keys inside acceptance items and handovers', () => {
    const raw = {
      slug: 'a',
      acceptance: [{ text: 't', addedBy: 'sid-l', addedAt: '2024-01-01T00:00:00Z', weight: 3, tags: ['x'] }],
      handovers: [{ from: 'a', to: 'b', at: '2024-01-01T00:00:00Z', reason: 'r', pane: 'op-a', host: 'box' }],
    };
    const t = TaskSchema.parse(raw);
    expect(t.acceptance?.[0]).toEqual(raw.acceptance[0]);
    expect(t.handovers?.[0]).toEqual(raw.handovers[0]);
  });

  it('puts known keys first (schema order), then unknown keys in input order; stable once parsed', () => {
    // zod's looseObject rebuilds the object: a file is reordered on its first write, never after.
    const raw = { zeta: 1, driverSid: 'x', slug: 'a', alpha: 2 };
    const once = TaskSchema.parse(raw);
    expect(Object.keys(once)).toEqual(['slug', 'driverSid', 'zeta', 'alpha']);
    expect(Object.keys(TaskSchema.parse(JSON.parse(JSON.stringify(once))))).toEqual(Object.keys(once));
  });

  const invalid: [string, unknown, string][] = [
    ['no slug', { driverSid: '' }, 'slug'],
    ['slug not a string', { slug: 3 }, 'slug'],
    ['driverSid not a string', { slug: 'a', driverSid: 5 }, 'driverSid'],
    ['driverPid negative', { slug: 'a', driverPid: -1 }, 'driverPid'],
    ['driverPid fractional', { slug: 'a', driverPid: 1.5 }, 'driverPid'],
    ['driverEpoch negative', { slug: 'a', driverEpoch: -1 }, 'driverEpoch'],
    ['acceptance not an array', { slug: 'a', acceptance: {} }, 'acceptance'],
    ['acceptance item without text', { slug: 'a', acceptance: [{ addedBy: 'x', addedAt: 'y' }] }, 'acceptance.0.text'],
    ['handover without reason', { slug: 'a', handovers: [{ from: 'a', to: 'b', at: 'c' }] }, 'handovers.0.reason'],
    ['handover pane not a string', { slug: 'a', handovers: [{ from: 'a', to: 'b', at: 'c', reason: 'r', pane: 1 }] }, 'handovers.0.pane'],
    ['top level an array', [], ''],
    ['top level null', null, ''],
  ];
  it.each(invalid)('rejects %s at path %j', (_what, raw, path) => {
    const r = TaskSchema.safeParse(raw);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues[0]?.path.join('.')).toBe(path);
  });

  describe('spawnNonce', () => {
    const nonces: [string, boolean][] = [
      [NONCE, true],
      ['f'.repeat(32), true],
      ['0'.repeat(32), true],
      [NONCE.toUpperCase(), false],
      ['0123456789ABCDEF0123456789abcdef', false],
      ['f'.repeat(31), false],
      ['f'.repeat(33), false],
      ['g'.repeat(32), false],
      ['', false],
      [` ${'f'.repeat(31)}`, false],
      [`${'f'.repeat(32)}\n`, false],
    ];
    it.each(nonces)('%j valid: %s', (nonce, ok) => {
      expect(NONCE_RE.test(nonce)).toBe(ok);
      const r = TaskSchema.safeParse({ slug: 'a', driverSid: '', spawnNonce: nonce });
      expect(r.success).toBe(ok);
      if (!r.success) expect(r.error.issues[0]?.path).toEqual(['spawnNonce']);
    });

    it('is what crypto.randomBytes(16) gives in hex', async () => {
      const { randomBytes } = await import('node:crypto');
      for (let i = 0; i < 20; i++) expect(NONCE_RE.test(randomBytes(16).toString('hex'))).toBe(true);
    });
  });

  describe('owner', () => {
    const cases: [string, Record<string, unknown>, string, boolean][] = [
      ['driverSid set', { slug: 'a', driverSid: 'sid-d' }, 'sid-d', false],
      ['driverSid empty', { slug: 'a', driverSid: '' }, '', true],
      ['neither key', { slug: 'a' }, '', true],
      ['operatorSid only (older record)', { slug: 'a', operatorSid: 'sid-o' }, 'sid-o', false],
      ['operatorSid empty only', { slug: 'a', operatorSid: '' }, '', true],
      ['driverSid wins over operatorSid', { slug: 'a', driverSid: 'sid-d', operatorSid: 'sid-o' }, 'sid-d', false],
      ['an empty driverSid is pending even with operatorSid', { slug: 'a', driverSid: '', operatorSid: 'sid-o' }, '', true],
    ];
    it.each(cases)('%s', (_what, raw, owner, pending) => {
      const t = TaskSchema.parse(raw);
      expect(ownerSid(t)).toBe(owner);
      expect(isPending(t)).toBe(pending);
    });
  });
});
