// The full CLI, dist/cli.cjs: help, --version, and every command parsed by
// yargs. The fast commands come here only for their help (src/cli/fast.ts).
import { UsageError } from '../errors';
import { LOADERS } from './commands';
import { commandName } from './parse';
import { report, runCommand, wantsJson } from './run';
import { findCommand, unknownCommandMessage, type Args } from './spec';
import { writeStdout } from './output';

declare const __FLEET_VERSION__: string;
const VERSION = typeof __FLEET_VERSION__ === 'string' ? __FLEET_VERSION__ : '0.0.0-dev';

function runNamed(name: string, args: Args): Promise<number> {
  const spec = findCommand(name);
  const load = LOADERS[name];
  if (!spec || !load) throw new UsageError(unknownCommandMessage(name));
  return runCommand(spec, args, load);
}

export async function main(argv: string[]): Promise<number> {
  try {
    if (!commandName(argv) && argv.includes('--version')) {
      writeStdout(`${VERSION}\n`);
      return 0;
    }
    const { runWithYargs } = await import('./yargs-cli');
    return await runWithYargs(argv, VERSION, runNamed);
  } catch (err) {
    return report(err, wantsJson(argv));
  }
}
