// The full CLI, dist/cli.cjs: help, --version, and every command. The fast
// commands come here only for their help (src/cli/fast.ts).
import { UsageError } from '../errors';
import { LOADERS } from './commands';
import { asksForHelp, commandName, parseCommandArgs } from './parse';
import { report, runCommand, wantsJson } from './run';
import { findCommand, unknownCommandMessage } from './spec';
import { writeStdout } from './output';

declare const __FLEET_VERSION__: string;
const VERSION = typeof __FLEET_VERSION__ === 'string' ? __FLEET_VERSION__ : '0.0.0-dev';

export async function main(argv: string[]): Promise<number> {
  try {
    const name = commandName(argv);
    const spec = findCommand(name);
    const load = name === undefined ? undefined : LOADERS[name];
    if (name !== undefined && (!spec || !load)) throw new UsageError(unknownCommandMessage(name));
    if (asksForHelp(argv)) {
      const { printHelp } = await import('./help');
      return await printHelp(argv, VERSION);
    }
    if (argv.includes('--version')) {
      writeStdout(`${VERSION}\n`);
      return 0;
    }
    if (!spec || !load) throw new UsageError('name a command (see tmux-fleet --help)');
    return await runCommand(spec, parseCommandArgs(spec, argv), load);
  } catch (err) {
    return report(err, wantsJson(argv));
  }
}
