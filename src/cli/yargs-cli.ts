// The yargs path: help, and parsing for the commands that are not hot.
import yargs from 'yargs';
import type { Context } from '../context';
import { UsageError } from '../errors';
import { COMMANDS, GLOBAL_OPTIONS, findCommand, unknownCommandMessage, type Args } from './spec';
import { asksForHelp, camel, commandName } from './parse';

/** yargs's own messages, said the way the fast parser says them: which command, and what. */
export function usageMessage(msg: string, argv: readonly string[]): string {
  const name = commandName(argv);
  const spec = findCommand(name);
  if (name !== undefined && !spec) return unknownCommandMessage(name);
  if (!spec) return msg;
  const missing = /^Not enough non-option arguments: got (\d+)/.exec(msg);
  const p = missing ? spec.positionals[Number(missing[1])] : undefined;
  if (p) return `${spec.name}: missing <${p.name}> (${p.describe})`;
  // "Invalid values:\n  Argument: action, Given: "frob", Choices: "install", ..." -> one line in the tool's voice.
  const invalid = /^\s*Argument: ([^,]+), Given: (.*?), Choices: (.*)$/m.exec(msg);
  if (/^Invalid values?:/.test(msg) && invalid) {
    const arg = invalid[1] as string;
    const what = spec.positionals.some((p) => p.name === arg) ? arg : `value for --${arg}`;
    const choices = (invalid[3] as string).split(/,\s*/).map((c) => c.replace(/^"(.*)"$/, '$1'));
    return `${spec.name}: unknown ${what} ${invalid[2]} (${choices.join(', ')})`;
  }
  const unknown = /^Unknown arguments?: ([^,]*)/.exec(msg);
  if (unknown) {
    const what = unknown[1] as string;
    const flag = argv.map((t) => t.replace(/=.*$/, '')).find((t) => t.startsWith('-') && t.replace(/^--?(no-)?/, '') === what);
    return flag
      ? `${spec.name}: unknown option ${flag} (see tmux-fleet ${spec.name} --help)`
      : `${spec.name}: unexpected argument ${JSON.stringify(what)}`;
  }
  return `${spec.name}: ${msg}`;
}

/**
 * yargs lays out the whole help text after every command it runs, in case it has to
 * show it later (cacheHelpMessage in yargs/lib/command.js): 30 to 40 ms of a `spawn`.
 * Nothing shows it after a command ran (.fail() says one line of our own), so unless
 * help was asked for, that layout is skipped, as Angular's CLI does:
 * https://github.com/angular/angular-cli/pull/34087. An internal of yargs: when it is
 * not there, nothing changes but the time.
 */
function skipHelpCache(y: unknown): void {
  const usage = (y as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: unknown } } })
    .getInternalMethods?.()
    .getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

export async function runWithYargs(
  argv: string[],
  version: string,
  runCommand: (name: string, args: Args) => Promise<number>,
): Promise<number> {
  let code = 0;
  const y = yargs(argv)
    .scriptName('tmux-fleet')
    .usage('$0 <command> [options]\n\nProof, not guesses, for AI coding agents in tmux.')
    .parserConfiguration({ 'parse-numbers': false, 'parse-positional-numbers': false, 'camel-case-expansion': true })
    .version(version)
    .help()
    .alias('h', 'help')
    .strict()
    .demandCommand(1, 'name a command (see --help)')
    .exitProcess(false)
    .wrap(Math.min(100, process.stdout.columns || 80))
    .fail((msg, err) => {
      throw err ?? new UsageError(usageMessage(msg, argv));
    });
  if (!asksForHelp(argv)) skipHelpCache(y);
  for (const [name, opt] of Object.entries(GLOBAL_OPTIONS)) {
    y.option(name, { type: opt.type, describe: opt.describe, global: true });
  }
  for (const spec of COMMANDS) {
    const usage = [spec.name, ...spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`))].join(' ');
    y.command(
      usage,
      spec.describe,
      (b) => {
        for (const p of spec.positionals) b.positional(p.name, { type: 'string', describe: p.describe, choices: p.choices });
        for (const [name, opt] of Object.entries(spec.options)) {
          b.option(name, { type: opt.type, describe: opt.describe, array: opt.array, choices: opt.choices });
        }
        return b;
      },
      async (parsed) => {
        const args: Args = {};
        const known = [...spec.positionals.map((p) => p.name), ...Object.keys(GLOBAL_OPTIONS), ...Object.keys(spec.options)];
        for (const k of known) {
          const v = (parsed as Record<string, unknown>)[camel(k)];
          if (v !== undefined) args[camel(k)] = Array.isArray(v) ? v.map(String) : v;
        }
        code = await runCommand(spec.name, args);
      },
    );
  }
  await y.parseAsync();
  return code;
}

export type { Context };
