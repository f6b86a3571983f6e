// The one parser of every command's arguments, read from the command table
// (src/cli/spec.ts): --opt value, --opt=value, --flag, --no-flag, repeated
// array options, and `--`. Its messages are the usage errors users see.
import { UsageError } from '../errors';
import { didYouMean } from '../suggest';
import { GLOBAL_OPTIONS, findCommand, type Args, type CommandSpec, type OptionSpec } from './spec';

export const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): Args {
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...spec.options };
  const args: Args = {};
  const positionals: string[] = [];
  let commandSeen = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      if (!commandSeen && token === spec.name) commandSeen = true;
      else positionals.push(token);
      continue;
    }
    if (!token.startsWith('--')) throw new UsageError(`${spec.name}: unknown option ${token} (see tmux-fleet ${spec.name} --help)`);
    const eq = token.indexOf('=');
    let name = eq === -1 ? token.slice(2) : token.slice(2, eq);
    let value: string | boolean | undefined = eq === -1 ? undefined : token.slice(eq + 1);
    if (!(name in options) && name.startsWith('no-') && options[name.slice(3)]?.type === 'boolean' && value === undefined) {
      name = name.slice(3);
      value = false;
    }
    const opt = options[name];
    if (!opt) throw new UsageError(`${spec.name}: unknown option --${name}${didYouMean(name, Object.keys(options), '--')} (see tmux-fleet ${spec.name} --help)`);
    if (opt.type === 'boolean') {
      if (typeof value === 'string') {
        if (value !== 'true' && value !== 'false') throw new UsageError(`${spec.name}: --${name} takes no value`);
        value = value === 'true';
      }
      args[camel(name)] = value ?? true;
      continue;
    }
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`${spec.name}: --${name} needs a value`);
      value = next;
      i++;
    }
    if (opt.choices && !opt.choices.includes(value as string)) {
      throw new UsageError(`${spec.name}: --${name} must be one of ${opt.choices.join(', ')}, not ${JSON.stringify(value)}${didYouMean(String(value), opt.choices)}`);
    }
    const key = camel(name);
    if (opt.array) args[key] = [...((args[key] as string[] | undefined) ?? []), value];
    else args[key] = value;
  }
  spec.positionals.forEach((p, idx) => {
    if (p.variadic) {
      const rest = positionals.splice(idx);
      if (rest.length === 0 && p.required) throw new UsageError(`${spec.name}: missing <${p.name}> (${p.describe})`);
      args[p.name] = rest;
      return;
    }
    const v = positionals[idx];
    if (v === undefined) {
      if (p.required) throw new UsageError(`${spec.name}: missing <${p.name}> (${p.describe})`);
      return;
    }
    if (p.choices && !p.choices.includes(v)) {
      throw new UsageError(`${spec.name}: <${p.name}> must be one of ${p.choices.join(', ')}, not ${JSON.stringify(v)}${didYouMean(v, p.choices)}`);
    }
    args[p.name] = v;
  });
  if (positionals.length > spec.positionals.length) {
    throw new UsageError(`${spec.name}: unexpected argument ${JSON.stringify(positionals[spec.positionals.length])}`);
  }
  return args;
}

/** The command name: the first argument that is not an option or a global option's value. */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') return undefined;
    if (!token.startsWith('-')) return token;
    const name = token.slice(2);
    if (!token.includes('=') && GLOBAL_OPTIONS[name]?.type === 'string') i++;
  }
  return undefined;
}

/**
 * The fast command a call names, when it asks for no help and no version: such a
 * call runs in the fast bundle (src/cli/fast.ts); every other call in dist/cli.cjs.
 */
export function fastCall(argv: readonly string[]): CommandSpec | undefined {
  const spec = findCommand(commandName(argv));
  if (!spec?.fast || asksForHelp(argv) || argv.includes('--version')) return undefined;
  return spec;
}

/** --help or -h anywhere: help is shown then, whatever else the call says. */
export function asksForHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}
