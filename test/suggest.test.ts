// Did-you-mean for mistyped names (src/suggest.ts): table-driven.
import { describe, expect, it } from 'vitest';
import { closest, editDistance, suggestion } from '../src/suggest';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['fix-login', 'fix-login', 0],
    ['fix-logn', 'fix-login', 1],
    ['fxi-login', 'fix-login', 1],
    ['taks', 'tasks', 1],
    ['doctr', 'doctor', 1],
    ['spawn', 'span', 1],
    ['kitten', 'sitting', 3],
  ])('%s / %s -> %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closest', () => {
  const tasks = ['add-search', 'fix-login', 'fix-logout'];
  it.each([
    ['fix-logn', tasks, 'fix-login'],
    ['fix-lgout', tasks, 'fix-logout'],
    ['add-serch', tasks, 'add-search'],
    ['zzz', tasks, null],
    ['fix', tasks, null],
    ['ab', ['ac', 'ad'], null],
    ['taks', ['tasks', 'takeover'], 'tasks'],
    ['x', [], null],
  ])('%s -> %s', (word, candidates, want) => {
    expect(closest(word, candidates)).toBe(want);
  });
});

describe('suggestion', () => {
  it('a near name, else the list (cut), else nothing', () => {
    expect(suggestion('fix-logn', ['fix-login', 'add-search'], 'tasks')).toBe('did you mean fix-login?');
    expect(suggestion('zzz', ['fix-login', 'add-search'], 'tasks')).toBe('tasks: fix-login, add-search');
    expect(suggestion('zzz', ['a1', 'b2', 'c3'], 'tasks', 2)).toBe('tasks: a1, b2, … (3 in all)');
    expect(suggestion('zzz', [], 'tasks')).toBe('');
  });
});
