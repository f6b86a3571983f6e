// The helper's entry, dist/tmux-fleet.cjs: small, so that Node compiles little
// before it runs anything. It loads the fast bundle, dist/fast.cjs, which runs
// owner, stamp and sid-of-pane itself and hands every other call to
// dist/cli.cjs (docs/budgets.md#owner-start-up).
//
// Under TMUX_FLEET_DEBUG=1 a stack trace names src/<file>.ts:<line>: Node
// turns bundle positions into source positions through the .map beside each
// bundle, for code compiled after source maps are turned on, so they are
// turned on before a bundle is loaded.
import { join } from 'node:path';
import type { Bundle } from './types';

/** A bundle that cannot be loaded (a build cut short, files removed): one line, not a stack. */
function incomplete(err: unknown): void {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  process.stderr.write(`tmux-fleet: the helper in ${__dirname} is incomplete (${first}); build it again: npm run build\n`);
  if (process.env.TMUX_FLEET_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
}

if (process.env.TMUX_FLEET_DEBUG === '1') process.setSourceMapsEnabled?.(true);
let fast: Bundle | undefined;
try {
  fast = require(join(__dirname, 'fast.cjs')) as Bundle;
} catch (err) {
  incomplete(err);
}
// Exit through process.exitCode so pending output is flushed. The bundles report
// their own errors; a rejection here is the full CLI that could not be loaded.
fast?.main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, incomplete);
