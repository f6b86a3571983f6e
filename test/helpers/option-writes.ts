// Every value a session option is set to, in order, as tmux receives them: a
// global after-set-option hook appends `<session>=<value>` to a global option
// of the server (set -gaF: no process starts, and a hook's own command fires
// no hook). A poll of the option would miss a value that lasts less than one
// poll; this sees each write (docs/development.md#tests).
const SEP = '|~|';

export interface OptionWrites {
  /** The values written to `option` of `session`, in order (an unset reads ''). */
  values(session: string): Promise<string[]>;
}

export async function recordOptionWrites(tmux: (args: string[]) => Promise<string>, option: string): Promise<OptionWrites> {
  const log = `@fleet-test-writes-${option.replace(/^@/, '')}`;
  await tmux(['set-hook', '-g', 'after-set-option', `set-option -gaF ${log} '#{session_name}=#{${option}}${SEP}'`]);
  return {
    async values(session) {
      const text = await tmux(['show-options', '-gqv', log]);
      return text
        .replace(/\n$/, '')
        .split(SEP)
        .filter((e) => e.startsWith(`${session}=`))
        .map((e) => e.slice(session.length + 1));
    },
  };
}
