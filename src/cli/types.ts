// The shapes of the command table (spec.ts) and of a command module. Its own
// file so that command modules, which spec.ts loads, never import spec.ts:
// the table points at the modules, never the other way.
import type { Context } from '../context';

export interface OptionSpec {
  type: 'string' | 'boolean';
  describe: string;
  /** Repeatable: collected into an array. */
  array?: boolean;
  choices?: readonly string[];
}

export interface PositionalSpec {
  name: string;
  describe: string;
  required: boolean;
  choices?: readonly string[];
}

export type Args = Record<string, unknown>;

export interface CommandModule {
  run(args: Args, ctx: Context): Promise<number | void>;
}

export interface CommandSpec {
  name: string;
  describe: string;
  positionals: PositionalSpec[];
  options: Record<string, OptionSpec>;
  /** Parsed by the fast parser, without loading yargs. */
  fast?: boolean;
  load(): Promise<CommandModule>;
}
