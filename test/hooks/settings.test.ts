// Which SessionStart hook commands are ours (pure).
import { describe, expect, it } from 'vitest';
import { hookHelperPath, isStampCommand, stampCommand } from '../../src/hooks/settings';

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
    ['tmux-fleet stamp', null], // found on PATH: nothing to check
    ['node /p/tmux-fleet.cjs stamp', null],
    ['/p/tmux-fleet.cjs owner t', null],
  ])('%j -> %j', (command, path) => {
    expect(hookHelperPath(command)).toBe(path);
  });
});
