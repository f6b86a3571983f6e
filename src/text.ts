// Text from files and from tmux, made safe to show. Any value read from a
// task file, the registry, settings.json or tmux may hold escape sequences
// (`\e]2;…\a` retitles a terminal, `\e[2J` clears it) or newlines (which
// split a line a script reads): every value shown to a person passes
// through printable(). Input echoed in an error is clipped too.

/**
 * Control characters: C0 (tab and newline included), DEL, C1, the line and
 * paragraph separators, and the bidirectional overrides and isolates (which
 * reorder what a terminal shows).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/** s without terminal escape sequences (CSI: colours, cursor moves; OSC: titles, links; two-character ones such as ESC 7), their text left as it was. */
export function withoutEscapes(s: string): string {
  return s.replace(/\x1b\[[0-9;?]*[\x20-\x2f]*[\x40-\x7e]/g, '').replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '').replace(/\x1b[\x30-\x7e]/g, '');
}

/** s with every run of control characters replaced by one space. */
export function printable(s: string): string {
  return s.replace(CONTROL, ' ');
}

/** At most max characters (code points): longer text keeps max - 1 and ends in `…`. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** How much of a user's input an error message repeats. */
export const ECHO_MAX = 80;

/** A user's input as an error shows it: printable, quoted, clipped to ECHO_MAX characters. */
export function echoInput(s: string): string {
  return JSON.stringify(clip(s, ECHO_MAX));
}

/**
 * JSON.parse's message without the piece of the file it quotes
 * (`Unexpected token 'x', "…" is not valid JSON`): an error never shows a
 * file's content, which may be anything a link pointed at.
 */
export function jsonErrorWithoutContent(message: string): string {
  const m = message.replace(/\s+/g, ' ');
  if (/^Unexpected token\b/.test(m)) return 'unexpected character';
  return m.replace(/,? ?(?:\.\.\.)?"(?:[^"\\]|\\.)*"(?:\.\.\.)?/g, '').trim();
}

/**
 * A copy of `s` that shares no memory with the text it was cut from. V8 keeps
 * a cut of 13 characters or more as a view of its whole parent, so a session
 * id kept from one tmux read, or a string kept from a registry row, would keep
 * that whole read or row alive as long as it is kept (docs/status.md#memory).
 * Only for text decoded from UTF-8 (no lone surrogate: the copy goes through
 * UTF-8).
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}
