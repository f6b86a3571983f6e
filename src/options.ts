// The plugin's tmux options (@fleet-<name>) and their defaults. The one table
// is scripts/option-defaults.json, which the shell side reads too
// (scripts/helpers.sh: fleet_option). Nothing writes a default into tmux: an
// option is read where it is used, and an unset one reads as its default, so
// a default changed by an upgrade reaches a running server.
import DEFAULTS from '../scripts/option-defaults.json';

export type FleetOption = keyof typeof DEFAULTS;

export function optionDefault(name: FleetOption): string {
  return DEFAULTS[name];
}

/**
 * An option's value as read from tmux (`#{@fleet-…}`, '' when unset): the
 * default when it is empty, since a format cannot tell unset from empty.
 */
export function optionValue(name: FleetOption, read: string | undefined): string {
  return read === undefined || read === '' ? DEFAULTS[name] : read;
}

/** An option whose being set is known: '' when set to '' (how a list is turned off), its default when unset. */
export function optionValueIfSet(name: FleetOption, set: boolean, read: string | undefined): string {
  return set ? (read ?? '') : DEFAULTS[name];
}

/** A non-negative whole number of an option (ms, seconds); the default when the value is not one. */
export function optionNumber(name: FleetOption, read: string | undefined): number {
  const text = optionValue(name, read?.trim());
  return /^\d+$/.test(text) ? Number(text) : Number(DEFAULTS[name]);
}

/** How long a message stays, in ms (display-message -d; 0: until a key is pressed). */
export function messageTimeMs(read: string | undefined): number {
  return optionNumber('@fleet-message-time', read);
}

/** The supervisor's fallback poll, in ms: @fleet-interval seconds (decimals allowed), at least 250 ms. */
export function intervalMs(read: string | undefined): number {
  const seconds = Number(optionValue('@fleet-interval', read?.trim()));
  const valid = Number.isFinite(seconds) && seconds > 0 ? seconds : Number(DEFAULTS['@fleet-interval']);
  return Math.max(250, valid * 1000);
}
