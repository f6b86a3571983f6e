// The helper's entry, dist/tmux-fleet.cjs: small, so that Node compiles little
// before it loads the fast bundle (docs/development.md#the-bundle).
//
// Under TMUX_FLEET_DEBUG=1 source maps are turned on before a bundle loads:
// Node applies them only to code compiled after, and a stack trace then names
// src/<file>.ts:<line>.
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
