import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FLEET_BIN = fileURLToPath(new URL('../../dist/tmux-fleet.cjs', import.meta.url));
export const STAND_IN = fileURLToPath(new URL('../fixtures/stand-in-agent.mjs', import.meta.url));
