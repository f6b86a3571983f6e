// The one zod import of the helper: zod/mini (tree-shakable, about 20 KB in the
// bundle) with English messages. The classic `zod` entry point carries every
// locale and builds its whole API when it is loaded, which alone costs more than
// `tmux-fleet owner`'s start-up budget (docs/budgets.md#owner-start-up).
// Import it as a namespace (`import * as z from '../zod'`): re-exporting the
// namespace object as one value would keep all of zod in the bundle.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
