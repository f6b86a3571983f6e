// The demo's prefix line names the outer tmux's prefix as it is.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { keyName, prefixHint } from '../../scripts/demo-hints.mjs';

describe('prefixHint', () => {
  it.each<[string | null, string]>([
    [null, 'the prefix is Ctrl-b.'],
    ['C-b', 'whose prefix is Ctrl-b too: press Ctrl-b twice'],
    ['C-a', 'whose prefix is Ctrl-a: Ctrl-b reaches the demo directly'],
    ['C-Space', 'whose prefix is Ctrl-Space: Ctrl-b reaches the demo directly'],
    ['M-a', 'whose prefix is Alt-a'],
  ])('outer prefix %s', (outer, want) => {
    expect(prefixHint('fleet-demo', outer)).toContain(want);
  });
  it('key names', () => expect([keyName('C-b'), keyName('M-x'), keyName('F12')]).toEqual(['Ctrl-b', 'Alt-x', 'F12']));
});
