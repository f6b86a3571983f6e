// The one zod import of the helper: zod/mini (tree-shakable) with English
// messages, bundled into a file of its own (dist/deps/zod.cjs) that a command
// reads when it first builds a schema: `owner` on a decided task never does
// (docs/development.md#the-bundle). The classic `zod` entry point carries every
// locale and builds its whole API when it is loaded, which alone costs more than
// `tmux-fleet owner`'s start-up budget (docs/budgets.md#owner-start-up).
// Import it as a namespace (`import * as z from '../zod'`). The values are
// named one by one: that list is what the file holds (all of zod/mini is
// 550 KB); a name missing here is a type error where it is used.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export { array, boolean, enum, int, looseObject, maxLength, nonnegative, nullable, number, object, optional, positive, regex, string, union, unknown } from 'zod/mini';
export type * from 'zod/mini';
