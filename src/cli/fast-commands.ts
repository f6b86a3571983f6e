// The modules of the fast commands (spec.ts: `fast: true`), the only ones
// the fast bundle (dist/fast.cjs) holds. commands.ts adds the rest for dist/cli.cjs.
import type { CommandLoaders } from './types';

export const FAST_LOADERS: CommandLoaders = {
  stamp: () => import('./stamp'),
  event: () => import('./event'),
  'sid-of-pane': () => import('./sid-of-pane'),
  owner: () => import('./owner'),
};
