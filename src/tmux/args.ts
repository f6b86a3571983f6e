// Pure helpers for building tmux argv. No process is started here.

/** Exact session target: `=` stops prefix matching, `:` makes pane-type commands accept it. */
export function sessionTarget(name: string): string {
  return `=${name}:`;
}

/**
 * tmux splits commands on any command-line argument that ends in `;`, even a
 * lone value. A trailing `\;` stands for a literal `;` (and the backslash is
 * dropped), so put a backslash before every trailing `;` of a data argument.
 */
export function escapeArg(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** Joins commands into one argv, separated by `;` arguments (the shell's `\;`). */
export function chainArgs(commands: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  commands.forEach((cmd, i) => {
    if (i > 0) out.push(';');
    for (const a of cmd) out.push(escapeArg(a));
  });
  return out;
}

/** Values written for display are drawn as formats: double every `#` so `#[..]` and `#(..)` stay text. */
export function escapeFormat(value: string): string {
  return value.replace(/#/g, '##');
}

/** A field separator tmux prints literally (it does not turn `\t` in a format into a tab). */
export const FIELD_SEP = '\t';
