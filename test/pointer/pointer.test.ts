import { describe, expect, it } from 'vitest';
import { acceptanceGate, launchPrompt, pointerLine, quoteValue, type PointerParent } from '../../src/pointer/pointer';

const SID = '3f2a9c1e-7b4d-4e0a-9f11-0c2d5e6a7b8c';
const WHY = /Your own worktree branches from the base, so that session's uncommitted or unmerged work is not in it: read it there when your task needs it, and never write to it/;

/** Undoes quoteValue: the rendered value must give back exactly the original. */
function unquote(rendered: string): string {
  return JSON.parse(rendered) as string;
}

/** The quoted value that follows `marker ` in the line. */
function quotedAfter(line: string, marker: string): string {
  const at = line.indexOf(`${marker} "`);
  expect(at, `${marker} in ${line}`).toBeGreaterThanOrEqual(0);
  const rest = line.slice(at + marker.length + 1);
  // A JSON string literal: a quote, then escapes or non-quote characters, then a quote.
  const m = /^"(?:\\.|[^"\\])*"/.exec(rest);
  expect(m).not.toBeNull();
  return m![0];
}

interface Row {
  name: string;
  parent: PointerParent | null | undefined;
  /** null: no pointer. */
  expect: null | { short: string; label?: string; worktree: string; branch?: string };
}

const table: Row[] = [
  { name: 'no parent (undefined)', parent: undefined, expect: null },
  { name: 'no parent (null)', parent: null, expect: null },
  { name: 'parent without a worktree', parent: { driverSid: SID, label: 'api', branch: 'fleet/api' }, expect: null },
  { name: 'parent with an empty worktree', parent: { driverSid: SID, worktree: '' }, expect: null },
  {
    name: 'worktree, branch, label',
    parent: { driverSid: SID, label: 'auth rework', worktree: '/home/u/wt/auth', branch: 'fleet/auth' },
    expect: { short: '3f2a9c1e', label: 'auth rework', worktree: '/home/u/wt/auth', branch: 'fleet/auth' },
  },
  {
    name: 'worktree and branch, no label',
    parent: { driverSid: SID, worktree: '/home/u/wt/auth', branch: 'fleet/auth' },
    expect: { short: '3f2a9c1e', worktree: '/home/u/wt/auth', branch: 'fleet/auth' },
  },
  {
    name: 'empty label is no label',
    parent: { driverSid: SID, label: '', worktree: '/w', branch: 'b' },
    expect: { short: '3f2a9c1e', worktree: '/w', branch: 'b' },
  },
  {
    name: 'older record owned through operatorSid',
    parent: { operatorSid: 'abcdef0123456789', worktree: '/w', branch: 'b' },
    expect: { short: 'abcdef01', worktree: '/w', branch: 'b' },
  },
  {
    name: 'path and branch with spaces',
    parent: { driverSid: SID, worktree: '/home/u/my work/a tree', branch: 'feature/with space' },
    expect: { short: '3f2a9c1e', worktree: '/home/u/my work/a tree', branch: 'feature/with space' },
  },
  {
    name: 'quotes and backslashes',
    parent: { driverSid: SID, label: `it's "quoted"`, worktree: `/tmp/it's "here"\\x`, branch: `o'"b` },
    expect: { short: '3f2a9c1e', label: `it's "quoted"`, worktree: `/tmp/it's "here"\\x`, branch: `o'"b` },
  },
  {
    name: 'shell and tmux syntax stays text',
    parent: { driverSid: SID, label: '$(rm -rf ~) #(date) `id`', worktree: '/tmp/$(touch pwned)/w;ls', branch: 'fleet/$(id)' },
    expect: { short: '3f2a9c1e', label: '$(rm -rf ~) #(date) `id`', worktree: '/tmp/$(touch pwned)/w;ls', branch: 'fleet/$(id)' },
  },
  {
    name: 'newlines and other line breaks stay on one line',
    parent: { driverSid: SID, label: 'two\nlines', worktree: '/tmp/a\nb\r\nc\u2028d\u0085e', branch: 'x\ny' },
    expect: { short: '3f2a9c1e', label: 'two\nlines', worktree: '/tmp/a\nb\r\nc\u2028d\u0085e', branch: 'x\ny' },
  },
];

describe('pointerLine', () => {
  it.each(table)('$name', ({ parent, expect: want }) => {
    const line = pointerLine(parent);
    if (want === null) {
      expect(line).toBeNull();
      return;
    }
    expect(line).not.toBeNull();
    const text = line as string;
    // One line, by any reader's rule.
    expect(text).not.toMatch(/[\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/);
    expect(text).toContain(`session ${want.short}`);
    expect(text).not.toContain(SID.slice(0, 9)); // only the short id
    expect(unquote(quotedAfter(text, 'worktree'))).toBe(want.worktree);
    if (want.branch !== undefined) expect(unquote(quotedAfter(text, 'branch'))).toBe(want.branch);
    if (want.label !== undefined) {
      expect(text).toContain(`(${quoteValue(want.label)})`);
      expect(unquote(quoteValue(want.label))).toBe(want.label);
    } else {
      expect(text).not.toMatch(/session \S+ \(/);
    }
    expect(text).toMatch(WHY);
    expect(text).toMatch(/never write to it \(it is a live tree whose owner is mid-edit\)\.$/);
  });

  it('is pure: the same record gives the same line and is not changed', () => {
    const parent = { driverSid: SID, label: 'l', worktree: '/w', branch: 'b' };
    const copy = structuredClone(parent);
    expect(pointerLine(parent)).toBe(pointerLine(copy));
    expect(parent).toEqual(copy);
  });

  it('a path that does not exist is still named: nothing is read from disk', () => {
    const line = pointerLine({ driverSid: SID, worktree: '/definitely/not/here', branch: 'b' });
    expect(line).toContain('"/definitely/not/here"');
  });

  it('a record without a branch still points at the worktree', () => {
    const line = pointerLine({ driverSid: SID, worktree: '/w' });
    expect(line).toContain('worktree "/w" on a branch it did not record');
  });

  it('an odd session id is quoted, not shown bare', () => {
    const line = pointerLine({ driverSid: 'a b$(x)\nzzzzz', worktree: '/w', branch: 'b' }) as string;
    expect(line).toContain('session "a b$(x)\\n"');
    expect(line).not.toContain('\n');
  });
});

describe('launchPrompt', () => {
  const P = 'Spawner: pointer';
  it.each([
    { prompt: 'do the thing', pointer: P, want: `do the thing\n\n${P}` },
    { prompt: 'do the thing\n\n\n', pointer: P, want: `do the thing\n\n${P}` },
    { prompt: 'line one\nline two', pointer: P, want: `line one\nline two\n\n${P}` },
    { prompt: '', pointer: P, want: P },
    { prompt: 'do the thing', pointer: null, want: 'do the thing' },
    { prompt: 'keep trailing\n', pointer: undefined, want: 'keep trailing\n' },
    { prompt: '$(id) "q"', pointer: P, want: `$(id) "q"\n\n${P}` },
  ])('$prompt + $pointer', ({ prompt, pointer, want }) => {
    expect(launchPrompt(prompt, pointer)).toBe(want);
  });

  it('ends with the pointer line of a real record', () => {
    const line = pointerLine({ driverSid: SID, worktree: '/w', branch: 'fleet/p' }) as string;
    const text = launchPrompt('fix the bug', line);
    expect(text.endsWith(`\n\n${line}`)).toBe(true);
    expect(text.split('\n').at(-1)).toBe(line);
  });
});

describe('the acceptance gate in the launch prompt', () => {
  const P = 'Spawner: pointer';
  const GATE = 'Acceptance gate: the task is done when each of these holds; check each before you call it done:\n- tests pass\n- docs updated';
  it.each([
    { prompt: 'do the thing', accept: ['tests pass', 'docs updated'], pointer: null, want: `do the thing\n\n${GATE}` },
    { prompt: 'do the thing\n', accept: ['tests pass', 'docs updated'], pointer: P, want: `do the thing\n\n${GATE}\n\n${P}` },
    { prompt: '', accept: ['tests pass', 'docs updated'], pointer: null, want: GATE },
    { prompt: 'keep trailing\n', accept: [], pointer: null, want: 'keep trailing\n' },
  ])('$prompt + $accept + $pointer', ({ prompt, accept, pointer, want }) => {
    expect(launchPrompt(prompt, pointer, accept)).toBe(want);
  });

  it('one line per item: a newline in an item cannot make another item', () => {
    expect(acceptanceGate(['a\n- b\r\nc\u2028d'])).toBe('Acceptance gate: the task is done when each of these holds; check each before you call it done:\n- a - b c d');
    expect(acceptanceGate([])).toBeNull();
  });
});
