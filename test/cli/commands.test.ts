// The command tables: spec.ts (arguments) and the two loader tables that the
// two bundles are built from (commands.ts for dist/cli.cjs, fast-commands.ts
// for the fast bundle). A command missing from a table would be "unknown" in
// one bundle only.
import { describe, expect, it } from 'vitest';
import { LOADERS } from '../../src/cli/commands';
import { FAST_LOADERS } from '../../src/cli/fast-commands';
import { fastCall } from '../../src/cli/parse';
import { COMMANDS } from '../../src/cli/spec';

describe('the command tables', () => {
  it('every command has one module in the full table; the fast table holds exactly the fast ones', () => {
    expect(Object.keys(LOADERS).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    expect(Object.keys(FAST_LOADERS).sort()).toEqual(COMMANDS.filter((c) => c.fast).map((c) => c.name).sort());
    for (const [name, load] of Object.entries(FAST_LOADERS)) expect(LOADERS[name], name).toBe(load);
  });

  it.each(COMMANDS.map((c) => c.name))('%s: its module exports run()', async (name) => {
    const mod = await LOADERS[name]!();
    expect(typeof mod.run).toBe('function');
  });

  it.each([
    [['owner', 'px', '--as', 'sid'], 'owner'],
    [['--home', '/h', 'stamp'], 'stamp'],
    [['--socket', 'owner', 'sid-of-pane', 'op-x'], 'sid-of-pane'],
    [['owner', 'px', '--help'], undefined],
    [['owner', '-h'], undefined],
    [['owner', 'px', '--version'], undefined],
    [['tasks'], undefined],
    [['--version'], undefined],
    [[], undefined],
    [['frob'], undefined],
  ])('fastCall(%j): %s', (argv, name) => {
    expect(fastCall(argv)?.name).toBe(name);
  });
});
