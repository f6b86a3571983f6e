// The fast bundle, dist/fast.cjs, which the entry (src/cli/bin.ts) loads
// for every call: it runs the fast commands (owner, stamp, sid-of-pane), and
// hands every other call, help and --version included, to the full CLI in
// dist/cli.cjs (src/cli/main.ts).
import { join } from 'node:path';
import { FAST_LOADERS } from './fast-commands';
import { fastCall, parseCommandArgs } from './parse';
import { fleetHome } from '../context';
import { hookFailure, report, runCommand, wantsJson } from './run';
import type { Bundle } from './types';

export async function main(argv: string[]): Promise<number> {
  const spec = fastCall(argv);
  const load = spec && FAST_LOADERS[spec.name];
  if (!spec || !load) return (require(join(__dirname, 'cli.cjs')) as Bundle).main(argv);
  try {
    return await runCommand(spec, parseCommandArgs(spec, argv), load);
  } catch (err) {
    // A hook's arguments that do not parse fail it no more than anything else (src/cli/run.ts).
    if (spec.hook) return hookFailure(spec, err, fleetHome());
    return report(err, wantsJson(argv));
  }
}
