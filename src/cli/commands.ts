// The module of every command, for the full bundle (dist/cli.cjs): the fast
// ones as fast-commands.ts names them, and the rest.
import { FAST_LOADERS } from './fast-commands';
import type { CommandLoaders } from './types';

export const LOADERS: CommandLoaders = {
  ...FAST_LOADERS,
  spawn: () => import('./spawn'),
  sweep: () => import('./sweep'),
  takeover: () => import('./takeover'),
  tasks: () => import('./tasks'),
  follow: () => import('./follow'),
  pointer: () => import('./pointer'),
  doctor: () => import('./doctor'),
  supervise: () => import('./supervise'),
  hooks: () => import('./hooks'),
  restore: () => import('./restore'),
  dashboard: () => import('./dashboard'),
  attention: () => import('./attention'),
  done: () => import('./done'),
  gc: () => import('./gc'),
  reopen: () => import('./reopen'),
  label: () => import('./label'),
  send: () => import('./send'),
};
