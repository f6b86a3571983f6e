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
import { compileBundle, loadBundle, type Bundle } from './load-bundle';

declare const __FLEET_FAST_BUNDLE__: string;

/** The fast bundle's file name, set by the build (its hash ties it to its code cache). */
const FAST_BUNDLE = typeof __FLEET_FAST_BUNDLE__ === 'string' ? __FLEET_FAST_BUNDLE__ : 'fast.cjs';

/** A bundle that cannot be loaded (a build cut short, files removed): one line, not a stack. */
function incomplete(err: unknown): void {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  process.stderr.write(`tmux-fleet: the helper in ${__dirname} is incomplete (${first}); build it again: npm run build\n`);
  if (process.env.TMUX_FLEET_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
}

function run(argv: string[]): void {
  const debug = process.env.TMUX_FLEET_DEBUG === '1';
  if (debug) process.setSourceMapsEnabled?.(true);
  let fast: Bundle;
  try {
    fast = loadBundle(join(__dirname, FAST_BUNDLE), { codeCache: !debug });
  } catch (err) {
    return incomplete(err);
  }
  // Exit through process.exitCode so pending output is flushed. The bundles report
  // their own errors; a rejection here is the full CLI that could not be loaded.
  fast.main(argv).then((code) => {
    process.exitCode = code;
  }, incomplete);
}

// Required rather than run (by the build, to make the code cache): only compileBundle is wanted.
if (require.main === module) run(process.argv.slice(2));

export { compileBundle };
