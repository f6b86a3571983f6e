// The shapes of the command table (spec.ts) and of a command module. Its own
// file so that command modules, which commands.ts loads, never import the
// tables: the tables point at the modules, never the other way.
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
  /** The last positional only: takes every remaining argument, as an array (`[slug...]`). */
  variadic?: boolean;
}

export type Args = Record<string, unknown>;

export interface CommandModule {
  run(args: Args, ctx: Context): Promise<number | void>;
}

export interface CommandSpec {
  name: string;
  describe: string;
  /** Where its design is told, a docs/ page and heading ('ownership.md#spawn'): docs/cli.md links it. */
  docs?: string;
  positionals: PositionalSpec[];
  options: Record<string, OptionSpec>;
  /**
   * Run from the fast bundle (dist/fast.cjs), without loading the full CLI: the
   * commands hooks and agents call all day (docs/budgets.md#owner-start-up).
   * Its module is then named in fast-commands.ts, else in commands.ts.
   */
  fast?: boolean;
  /**
   * Run by an agent as a hook (stamp): prints nothing and never fails it; any
   * error, a refused fleet home included, goes to the log and the exit is 0.
   */
  hook?: boolean;
}

/** What a bundle exports: the entry (src/cli/bin.ts) calls the fast one's, the fast one the full CLI's. */
export interface Bundle {
  main(argv: string[]): Promise<number>;
}

/** Loads the module that runs a command: one `import()` each, so a bundle holds only the commands it names. */
export type CommandLoaders = Record<string, () => Promise<CommandModule>>;
