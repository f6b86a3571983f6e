import { describe, expect, it } from 'vitest';
import { FIELD_SEP, chainArgs, escapeArg, escapeFormat, parseRows, sessionTarget, setOptionCommands } from '../../src/tmux';

describe('sessionTarget', () => {
  it.each([
    ['op-a', '=op-a:'],
    ['keeper', '=keeper:'],
    ['x y', '=x y:'],
  ])('%j -> %j (exact match, session part of a pane target)', (name, target) => {
    expect(sessionTarget(name)).toBe(target);
  });
});

describe('escapeArg', () => {
  // tmux ends a command at an argument ending in `;`; a trailing `\;` is a literal `;`.
  const cases: [string, string][] = [
    ['', ''],
    ['plain', 'plain'],
    ['a;', 'a\\;'],
    [';', '\\;'],
    [';;', ';\\;'],
    ['a\\;', 'a\\\\;'],
    ['a;b', 'a;b'],
    ['; kill-server', '; kill-server'],
    ['#(touch x)', '#(touch x)'],
    ['$(touch x)', '$(touch x)'],
    ['a\\', 'a\\'],
    ['quote "\' ok', 'quote "\' ok'],
    ['line\nbreak;', 'line\nbreak\\;'],
  ];
  it.each(cases)('%j -> %j', (arg, escaped) => {
    expect(escapeArg(arg)).toBe(escaped);
  });
});

describe('chainArgs', () => {
  const cases: [string, string[][], string[]][] = [
    ['nothing', [], []],
    ['one command', [['set-option', '-t', '=a:', '@x', '1']], ['set-option', '-t', '=a:', '@x', '1']],
    [
      'two commands',
      [['set-option', '@a', '1'], ['set-option', '@b', '2']],
      ['set-option', '@a', '1', ';', 'set-option', '@b', '2'],
    ],
    [
      'three commands, data ending in ;',
      [['set-option', '@a', 'x;'], ['kill-session', '-t', '=a:'], ['set-option', '@c', ';']],
      ['set-option', '@a', 'x\\;', ';', 'kill-session', '-t', '=a:', ';', 'set-option', '@c', '\\;'],
    ],
    ['an empty command in the middle', [['a'], [], ['b']], ['a', ';', ';', 'b']],
  ];
  it.each(cases)('%s', (_what, commands, argv) => {
    expect(chainArgs(commands)).toEqual(argv);
  });

  it('only separators are bare `;` arguments', () => {
    const argv = chainArgs([['x', ';', 'a;'], ['y', ';;']]);
    expect(argv.filter((a) => a === ';')).toHaveLength(1);
    expect(argv.filter((a) => a.endsWith(';') && !a.endsWith('\\;') && a !== ';')).toHaveLength(0);
  });
});

describe('escapeFormat', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['plain', 'plain'],
    ['#', '##'],
    ['##', '####'],
    ['#[fg=red]x', '##[fg=red]x'],
    ['#(touch x)', '##(touch x)'],
    ['#{session_name}', '##{session_name}'],
    ['a#b#c', 'a##b##c'],
    ['$(x) ; `y`', '$(x) ; `y`'],
  ];
  it.each(cases)('%j -> %j', (value, escaped) => {
    expect(escapeFormat(value)).toBe(escaped);
  });
});

describe('setOptionCommands', () => {
  it('one set-option per key, exact target, values untouched (escaping happens in chainArgs)', () => {
    expect(setOptionCommands('op-a', { '@x': '1', '@y': 'z;' })).toEqual([
      ['set-option', '-t', '=op-a:', '@x', '1'],
      ['set-option', '-t', '=op-a:', '@y', 'z;'],
    ]);
  });
});

describe('parseRows', () => {
  const T = FIELD_SEP;
  it('uses a real tab', () => {
    expect(FIELD_SEP).toBe('\t');
  });
  const cases: [string, string, string[], Record<string, string>[]][] = [
    ['empty output', '', ['a', 'b'], []],
    ['one row', `x${T}y\n`, ['a', 'b'], [{ a: 'x', b: 'y' }]],
    ['no final newline', `x${T}y`, ['a', 'b'], [{ a: 'x', b: 'y' }]],
    ['several rows', `x${T}1\ny${T}2\n`, ['a', 'b'], [{ a: 'x', b: '1' }, { a: 'y', b: '2' }]],
    ['spaces are data', `a b${T} c \n`, ['a', 'b'], [{ a: 'a b', b: ' c ' }]],
    ['empty fields', `${T}${T}\n`, ['a', 'b', 'c'], [{ a: '', b: '', c: '' }]],
    ['missing fields are empty', `x\n`, ['a', 'b', 'c'], [{ a: 'x', b: '', c: '' }]],
    ['the last field keeps stray tabs', `x${T}y${T}z\n`, ['a', 'b'], [{ a: 'x', b: `y${T}z` }]],
    ['blank lines are skipped', `x${T}y\n\n`, ['a', 'b'], [{ a: 'x', b: 'y' }]],
    ['a literal backslash-t is not a separator', `x\\ty\n`, ['a', 'b'], [{ a: 'x\\ty', b: '' }]],
  ];
  it.each(cases)('%s', (_what, out, keys, rows) => {
    expect(parseRows(out, keys)).toEqual(rows);
  });
});
