// Writes many session options and toasts in as few tmux invocations as fit.
// tmux's client refuses a command line over 16 KiB ("command too long"), and a
// chain stops at its first failing command (a session closed meanwhile), so
// writes go in batches under a byte budget, and a failed batch is split until
// only the failing commands are left out (docs/tmux.md#facts-measured-on-tmux-33a).
import { chainArgs, sessionTarget } from './args';
import type { Tmux } from './client';

/** Bytes of argv one invocation may carry: well under tmux's 16 KiB message, with room for the socket flags. */
export const MAX_CHAIN_BYTES = 12_000;
/** A toast is a sentence, not a file: longer text is cut (with an ellipsis). */
export const MAX_TOAST_CHARS = 400;

export interface OptionChange {
  /** The session whose option this is; with `window` or `global`, only named for messages. */
  session: string;
  /** A window id (@N): the option is set on that window, where it overrides the session's in its status line. */
  window?: string;
  /** The global option, which every session without one of its own reads (the fleet's attention). */
  global?: boolean;
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
  const text = t.text.length > MAX_TOAST_CHARS ? `${t.text.slice(0, MAX_TOAST_CHARS - 1)}…` : t.text;
  return ['display-message', '-c', t.client, ...duration, text.replace(/#/g, '##')];
}

export function changeCommands(changes: readonly OptionChange[], toasts: readonly Toast[] = []): string[][] {
  const cmds: string[][] = changes.map((c) => {
    const target = c.global ? ['-g'] : c.window !== undefined ? ['-w', '-t', c.window] : ['-t', sessionTarget(c.session)];
    return c.value === '' ? ['set-option', '-u', ...target, c.option] : ['set-option', ...target, c.option, c.value];
  });
  for (const t of toasts) cmds.push(toastCommand(t));
  return cmds;
}

/** The bytes a chain of commands sends (each argument and its NUL). */
function chainBytes(cmds: readonly (readonly string[])[]): number {
  return chainArgs(cmds).reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
}

/** Commands grouped into chains of at most `maxBytes` each, in order; a command larger than that stands alone. */
export function batchCommands(cmds: readonly string[][], maxBytes = MAX_CHAIN_BYTES): string[][][] {
  const batches: string[][][] = [];
  let cur: string[][] = [];
  let size = 0;
  for (const c of cmds) {
    const bytes = chainBytes([c]) + 2; // and the ';' between
    if (cur.length > 0 && size + bytes > maxBytes) {
      batches.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(c);
    size += bytes;
  }
  if (cur.length > 0) batches.push(cur);
  return batches;
}

/**
 * Runs a batch; when it fails, its halves, down to single commands, so that
 * one failing command (a session closed meanwhile) costs only itself.
 * Returns the commands that failed.
 */
async function runBatch(tmux: Tmux, cmds: string[][]): Promise<string[][]> {
  const r = await tmux.tryChain(cmds);
  if (r.exitCode === 0) return [];
  if (cmds.length === 1) return cmds;
  const mid = Math.ceil(cmds.length / 2);
  return [...(await runBatch(tmux, cmds.slice(0, mid))), ...(await runBatch(tmux, cmds.slice(mid)))];
}

/**
 * Every change and toast, in as few calls as fit; nothing to do, no call.
 * Resolves with the commands tmux refused (empty when all landed).
 */
export async function applyChanges(tmux: Tmux, changes: readonly OptionChange[], toasts: readonly Toast[] = []): Promise<{ calls: number; failed: string[][] }> {
  const cmds = changeCommands(changes, toasts);
  const failed: string[][] = [];
  const batches = batchCommands(cmds);
  for (const b of batches) failed.push(...(await runBatch(tmux, b)));
  return { calls: batches.length, failed };
}
