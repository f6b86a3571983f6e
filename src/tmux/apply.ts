// Writes many session options and toasts in one tmux invocation.
import { sessionTarget } from './args';
import type { Tmux } from './client';

export interface OptionChange {
  session: string;
  option: string;
  /** '' unsets the option: a session with nothing to show shows nothing. */
  value: string;
}

export interface Toast {
  client: string;
  /** Plain text; '#' is doubled here because display-message expands formats. */
  text: string;
  /** How long it stays (display-message -d, ms); absent: tmux's display-time. */
  durationMs?: number;
}

/** The display-message of one toast. */
export function toastCommand(t: Toast): string[] {
  const duration = t.durationMs === undefined ? [] : ['-d', String(t.durationMs)];
  return ['display-message', '-c', t.client, ...duration, t.text.replace(/#/g, '##')];
}

export function changeCommands(changes: readonly OptionChange[], toasts: readonly Toast[] = []): string[][] {
  const cmds: string[][] = changes.map((c) =>
    c.value === ''
      ? ['set-option', '-u', '-t', sessionTarget(c.session), c.option]
      : ['set-option', '-t', sessionTarget(c.session), c.option, c.value],
  );
  for (const t of toasts) cmds.push(toastCommand(t));
  return cmds;
}

/** One call for everything; nothing to do, no call. */
export async function applyChanges(tmux: Tmux, changes: readonly OptionChange[], toasts: readonly Toast[] = []): Promise<boolean> {
  const cmds = changeCommands(changes, toasts);
  if (cmds.length === 0) return false;
  await tmux.chain(cmds);
  return true;
}
