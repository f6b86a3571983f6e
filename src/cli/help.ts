// Help, laid out by yargs from the command table (src/cli/spec.ts). yargs parses
// no command: every command is parsed by the one parser of src/cli/parse.ts, so
// a call that asks for no help never loads yargs.
import yargs from 'yargs';
import { UsageError } from '../errors';
import { COMMANDS, GLOBAL_OPTIONS } from './spec';

/** Prints the help that argv asks for (the tool's, or a command's) on stdout. */
export async function printHelp(argv: string[], version: string): Promise<number> {
  const y = yargs(argv)
    .scriptName('tmux-fleet')
    .usage('$0 <command> [options]\n\nProof, not guesses, for AI coding agents in tmux.')
    .parserConfiguration({ 'parse-numbers': false, 'parse-positional-numbers': false })
    .version(version)
    .help()
    .alias('h', 'help')
    .exitProcess(false)
    .wrap(Math.min(100, process.stdout.columns || 80))
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    });
  for (const [name, opt] of Object.entries(GLOBAL_OPTIONS)) {
    y.option(name, { type: opt.type, describe: opt.describe, global: true });
  }
  for (const spec of COMMANDS) {
    const usage = [spec.name, ...spec.positionals.map((p) => (p.required ? `<${p.name}${p.variadic ? '..' : ''}>` : `[${p.name}${p.variadic ? '..' : ''}]`))].join(' ');
    y.command(usage, spec.describe, (b) => {
      for (const p of spec.positionals) b.positional(p.name, { type: 'string', describe: p.describe, choices: p.choices, array: p.variadic });
      for (const [name, opt] of Object.entries(spec.options)) {
        b.option(name, { type: opt.type, describe: opt.describe, array: opt.array, choices: opt.choices });
      }
      return b;
    });
  }
  await y.parseAsync();
  return 0;
}
