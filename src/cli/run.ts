// Running one command, and the one place errors become exit codes: shared by
// both bundles (main.ts for dist/cli.cjs, fast.ts for dist/fast.cjs).
import { ensureFleetHome, fleetHome, makeContext } from '../context';
import { appendLog } from '../log';
import { FleetError } from '../errors';
import { printable } from '../text';
import type { Args, CommandModule, CommandSpec } from './types';
import { writeStdout, writeStderr } from './output';

const ISSUES_URL = 'https://github.com/tmux-fleet/tmux-fleet/issues';

export async function runCommand(spec: CommandSpec, args: Args, load: () => Promise<CommandModule>): Promise<number> {
  try {
    const ctx = makeContext({
      home: args.home as string | undefined,
      socket: args.socket as string | undefined,
      socketPath: args.socketPath as string | undefined,
      json: args.json as boolean | undefined,
    });
    // doctor reports an untrusted home as a failed check; hooks does not use the home.
    if (spec.name !== 'doctor' && spec.name !== 'hooks') ensureFleetHome(ctx.home);
    const mod = await load();
    // A bug on demand, for the test that a stack names src/ (test/cli/bundle.test.ts): honoured only under TMUX_FLEET_DEBUG=1.
    if (process.env.TMUX_FLEET_DEBUG === '1' && process.env.TMUX_FLEET_DEBUG_THROW === spec.name) throw new Error(`TMUX_FLEET_DEBUG_THROW=${spec.name}`);
    const code = await mod.run(args, ctx);
    return typeof code === 'number' ? code : 0;
  } catch (err) {
    if (spec.hook) return hookFailure(spec, err, fleetHome(process.env, args.home as string | undefined));
    throw err;
  }
}

/**
 * A hook's error (spec.hook): one line in the log, nothing printed, exit 0.
 * The log is written only where the home itself may be (src/log.ts).
 */
export function hookFailure(spec: CommandSpec, err: unknown, home: string): number {
  appendLog(home, spec.name, err instanceof Error ? err.message : String(err));
  return 0;
}

/** --json among the options (before a `--`): errors are then one JSON object on stdout too. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  let json = false;
  for (const a of options) {
    if (a === '--json' || a === '--json=true') json = true;
    else if (a === '--no-json' || a === '--json=false') json = false;
  }
  return json;
}

/**
 * The one place errors become exit codes and a single stderr line; under
 * --json also `{"error": ..., "exit": ...}` on stdout, so a script reading
 * stdout gets its one object for a usage error too.
 */
export function report(err: unknown, json = false): number {
  const debug = process.env.TMUX_FLEET_DEBUG === '1';
  const code = err instanceof FleetError ? err.exitCode : 1;
  const message = err instanceof Error ? err.message : String(err);
  // Messages carry values from files and tmux: no control character reaches the terminal.
  const line = printable(message.split('\n').map((s) => s.trim()).filter(Boolean).join(' '));
  if (json && line) writeStdout(`${JSON.stringify({ error: line, exit: code })}\n`);
  if (line) writeStderr(`tmux-fleet: ${line}\n`);
  if (debug && err instanceof Error && err.stack) writeStderr(`${err.stack}\n`);
  // Not one of ours: a bug, unless the message says otherwise (a file the system refused, say).
  if (debug && !(err instanceof FleetError)) writeStderr(`tmux-fleet: if this is a bug, please report it with the lines above: ${ISSUES_URL}\n`);
  return code;
}
