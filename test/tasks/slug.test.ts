import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors';
import { SLUG_RULE, assertSlug, isValidSlug } from '../../src/tasks';

const valid: [string, string][] = [
  ['a', 'one letter'],
  ['0', 'one digit'],
  ['fix-login', 'dash'],
  ['fix_login_2', 'underscore and digit'],
  ['9lives', 'starts with a digit'],
  ['a'.repeat(63), '63 characters (the maximum)'],
  ['a-', 'ends with a dash'],
];

const invalid: [string, string][] = [
  ['', 'empty'],
  ['../x', 'path traversal'],
  ['.', 'a dot'],
  ['..', 'two dots'],
  ['a.b', 'a dot inside (tmux rewrites it in session names)'],
  ['a:b', 'a colon (tmux target syntax)'],
  ['a/b', 'a slash'],
  ['Caps', 'capital letters'],
  ['-x', 'starts with a dash'],
  ['_x', 'starts with an underscore'],
  ['a'.repeat(64), '64 characters'],
  ['a b', 'a space'],
  ['abc\n', 'a trailing newline'],
  ['\nabc', 'a leading newline'],
  ['a#(touch x)', 'a tmux format'],
  ['a;b', 'a semicolon'],
  ['ä', 'non-ASCII'],
];

describe('slug rule', () => {
  it('is the rule of docs/tasks.md#slugs', () => {
    expect(SLUG_RULE.source).toBe('^[a-z0-9][a-z0-9_-]{0,62}$');
  });

  it.each(valid)('accepts %j (%s)', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
    expect(assertSlug(slug)).toBe(slug);
  });

  it.each(invalid)('rejects %j (%s) with a usage error naming the rule', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
    let caught: unknown;
    try {
      assertSlug(slug);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    const err = caught as UsageError;
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(JSON.stringify(slug));
    expect(err.message).toContain(SLUG_RULE.source);
    expect(err.message).toMatch(/1-63 characters/);
  });

  it.each([[undefined], [null], [42], [{}]])('rejects the non-string %j', (value) => {
    expect(() => assertSlug(value)).toThrow(UsageError);
  });
});
