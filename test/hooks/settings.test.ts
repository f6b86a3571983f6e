// Which SessionStart hook commands are ours, and editing settings.json in its text (pure).
import { describe, expect, it } from 'vitest';
import { formattingOf, hookHelperPath, hookNodePath, isStampCommand, stampCommand } from '../../src/hooks/settings';
import { blankComments, commentRanges, removeAt } from '../../src/json-text';

describe('isStampCommand', () => {
  it.each([
    ["'/p/dist/tmux-fleet.cjs' stamp", true],
    ['/p/dist/tmux-fleet.cjs stamp', true],
    ["'node' '/p/dist/tmux-fleet.cjs' stamp", true],
    ["'/old place/tmux-fleet.mjs' stamp", true], // an install of the earlier layout, upgraded in place
    ['tmux-fleet stamp', true],
    ['tmux-fleet stamp --sid x', true],
    ['tmux-fleet owner t', false],
    ['my-tmux-fleet stamp', false],
    ['tmux-fleet.js stamp', false],
    ['tmux-fleet stamper', false],
    ['echo stamp', false],
  ])('%j -> %s', (command, ours) => {
    expect(isStampCommand(command)).toBe(ours);
  });
});

describe('hookHelperPath', () => {
  it.each([
    ['/p/dist/tmux-fleet.cjs'],
    ["/home/a b/it's/dist/tmux-fleet.cjs"],
    ['/x/$(touch pwned)/tmux-fleet.mjs'],
  ])('reads back the path stampCommand wrote: %j', (path) => {
    expect(hookHelperPath(stampCommand(path))).toBe(path);
  });

  it.each([
    ['/usr/bin/node', '/p/dist/tmux-fleet.cjs'],
    ["/home/a b/.nvm/versions/node/v20.11.1/bin/node", "/home/a b/it's/dist/tmux-fleet.cjs"],
  ])('reads back the helper and the node of the form with node: %j %j', (node, path) => {
    const command = stampCommand(path, node);
    expect(hookHelperPath(command)).toBe(path);
    expect(hookNodePath(command)).toBe(node);
    expect(isStampCommand(command)).toBe(true);
  });

  it.each([
    ['tmux-fleet stamp', null, null], // found on PATH: nothing to check
    ['node /p/tmux-fleet.cjs stamp', '/p/tmux-fleet.cjs', null], // node found on PATH
    ['/p/tmux-fleet.cjs owner t', null, null],
    ["'/p/tmux-fleet.cjs' stamp", '/p/tmux-fleet.cjs', null], // the older form
  ])('%j -> %j, node %j', (command, path, node) => {
    expect(hookHelperPath(command)).toBe(path);
    expect(hookNodePath(command)).toBe(node);
  });
});

describe('editing settings.json in its text', () => {
  const removals: [string, string, (string | number)[], string][] = [
    ['the only element', '{"a": [1]}', ['a', 0], '{"a": []}'],
    ['the last element of a one-line array (jsonc-parser 3.3.1 tears this one)', '{"a": [{"x": 1}, {"y": 2}]}', ['a', 1], '{"a": [{"x": 1}]}'],
    ['the first element', '{"a": [1, 2, 3]}', ['a', 0], '{"a": [2, 3]}'],
    ['a middle element over lines', '[\n  1,\n  2,\n  3\n]', [1], '[\n  1,\n  3\n]'],
    ['the last member', '{\n  "a": 12345678901234567890,\n  "b": 1\n}', ['b'], '{\n  "a": 12345678901234567890\n}'],
    ['a member of a duplicate key: the last, as JSON.parse reads', '{"d": 1, "d": 2, "e": 1e2}', ['d'], '{"d": 1, "e": 1e2}'],
    ['nothing at that path', '{"a": 1}', ['b'], '{"a": 1}'],
  ];
  it.each(removals)('removeAt: %s', (_what, text, path, want) => {
    expect(removeAt(text, path)).toBe(want);
  });

  // Comments as Gemini CLI takes them (strip-json-comments): a removal keeps every one, in its place.
  const commented: [string, string, (string | number)[], string][] = [
    ['an element with a comment line after it', '[\n  {"a": 1},\n  // other\n  {"b": 2}\n]', [0], '[\n  // other\n  {"b": 2}\n]'],
    ['the last element, a line comment after the comma before it', '[\n  {"a": 1}, // note\n  {"b": 2}\n]', [1], '[\n  {"a": 1} // note\n]'],
    ['the only element, a comment before it', '{"h": [ // mine\n  1\n]}', ['h', 0], '{"h": [ // mine\n  ]}'],
    ['a member whose value holds a comment', '{\n  "a": 1,\n  "h": { /* keep */ "x": 1 }\n}', ['h'], '{\n  "a": 1 /* keep */\n}'],
    ['no comment in what goes: as without comments', '{"a": 1, /* c */ "b": 2, "d": 3}', ['d'], '{"a": 1, /* c */ "b": 2}'],
  ];
  it.each(commented)('removeAt with comments: %s', (_what, text, path, want) => {
    expect(removeAt(text, path, commentRanges(text))).toBe(want);
    expect(() => JSON.parse(blankComments(want, commentRanges(want)))).not.toThrow();
  });

  it.each([
    ['a // inside a string', '{"u": "http://x//y"} // c', [[21, 25]]],
    ['an escaped quote, then a comment', '{"q": "a\\"//b"} /* c */', [[16, 23]]],
    ['an escaped backslash ends the string', '{"q": "a\\\\"} // c', [[13, 17]]],
    ['a block comment not closed runs to the end', '{} /* open', [[3, 10]]],
    ['a line comment ends before CRLF', '{} // c\r\n', [[3, 7]]],
  ] as [string, string, [number, number][]][])('commentRanges: %s', (_what, text, want) => {
    expect(commentRanges(text)).toEqual(want);
  });

  const layouts: [string, string, ReturnType<typeof formattingOf>][] = [
    ['two spaces', '{\n  "a": 1\n}', { insertSpaces: true, tabSize: 2, eol: '\n' }],
    ['four spaces, CRLF', '{\r\n    "a": 1\r\n}', { insertSpaces: true, tabSize: 4, eol: '\r\n' }],
    ['tabs', '{\n\t"a": 1\n}', { insertSpaces: false, tabSize: 1, eol: '\n' }],
    ['one line: kept on one line', '{"a": 1}', null],
    ['empty object', '{}', { insertSpaces: true, tabSize: 2, eol: '\n' }],
  ];
  it.each(layouts)('formattingOf: %s', (_what, text, want) => {
    expect(formattingOf(text)).toEqual(want);
  });
});
