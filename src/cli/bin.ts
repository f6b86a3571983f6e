// The helper's entry, dist/tmux-fleet.cjs: small, so that Node compiles little
// before it runs anything. It loads the fast bundle, dist/fast-<hash>.cjs, with
// the code cache the build made for it; that bundle runs owner, stamp and
// sid-of-pane itself and hands every other call to dist/cli.cjs
// (docs/budgets.md#owner-start-up).
//
// Under TMUX_FLEET_DEBUG=1 a stack trace names src/<file>.ts:<line>: Node
// turns bundle positions into source positions through the .map beside each
// bundle, for code compiled after source maps are turned on, so they are
// turned on before a bundle is loaded (and the code cache, which has no map, is not used).
import { join } from 'node:path';
import { compileBundle, loadBundle } from './load-bundle';

declare const __FLEET_FAST_BUNDLE__: string;

/** The fast bundle's file name, set by the build (its hash ties it to its code cache). */
const FAST_BUNDLE = typeof __FLEET_FAST_BUNDLE__ === 'string' ? __FLEET_FAST_BUNDLE__ : 'fast.cjs';

function run(argv: string[]): void {
  const debug = process.env.TMUX_FLEET_DEBUG === '1';
  if (debug) process.setSourceMapsEnabled?.(true);
  const fast = loadBundle(join(__dirname, FAST_BUNDLE), { codeCache: !debug });
  // Exit through process.exitCode so pending output is flushed.
  void fast.main(argv).then((code) => {
    process.exitCode = code;
  });
}

// Required rather than run (by the build, to make the code cache): only compileBundle is wanted.
if (require.main === module) run(process.argv.slice(2));

export { compileBundle };
