// Which SessionStart hook commands are ours (pure).
import { describe, expect, it } from 'vitest';
import { isStampCommand } from '../../src/hooks/settings';

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
