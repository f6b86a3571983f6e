// The global options the supervisor reads with each snapshot whose being set
// matters ('' turns them off, where unset is their default), and their values.
import { optionValueIfSet } from '../options';
import { setKey } from '../tmux/snapshot';

/** Global options whose being set at all the supervisor must know: '' turns them off, where unset is their default. */
export const SUPERVISOR_SET_OPTIONS = ['@fleet-notify', '@fleet-attention-key'] as const;

/** A global option's value as the snapshot read it: its default when unset, '' when set to ''. */
export function setOptionValue(config: Readonly<Record<string, string>>, option: (typeof SUPERVISOR_SET_OPTIONS)[number], key: string): string {
  return optionValueIfSet(option, config[setKey(option)] === '1', config[key]);
}


/** How a notification says to get there: the first attention key (`prefix A`), else the command. */
export function jumpHint(attentionKeys: string): string {
  const key = attentionKeys.trim().split(/\s+/)[0] ?? '';
  return key ? `prefix ${key}` : 'tmux-fleet attention --jump';
}
