// The only code that runs tmux. argv arrays through execa (one read of `owner`:
// node:child_process; the supervisor: one long-lived sh, shell-runner.ts, each
// argument quoted), never a shell string built from unquoted text.
import type { SocketChoice } from '../context';
import { TmuxError } from '../errors';
import { FIELD_SEP, chainArgs, escapeArg, sessionTarget } from './args';

export interface TmuxResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** tmux gave no answer before the deadline and was killed (stderr says so). */
  timedOut?: boolean;
}

/**
 * How long one tmux call may take. One costs about 5 ms (a hundred on a
 * loaded machine); a server that does not answer at all (stopped with
 * SIGSTOP, say) must not hang the agent's SessionStart hook or a script
 * (docs/tmux.md#deadlines).
 */
export const TMUX_DEADLINE_MS = 2000;

/** The calls reads are made with (a Tmux; tests hand in stand-ins that count or fail). */
export interface TmuxReads {
  /** One command, arguments taken literally; never throws. */
  tryRun(args: readonly string[]): Promise<TmuxResult>;
  /** Commands as one chain: stops at the first failure; never throws. */
  tryChain(commands: readonly (readonly string[])[]): Promise<TmuxResult>;
}

export interface TmuxOptions {
  /** false: every call runs with `tmux -N`, so no call starts a server that is not running (doctor reads only). */
  startServer?: boolean;
  /** Where $TMUX is read from when no socket is chosen (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Run tmux through node:child_process rather than execa: for `owner`'s one read
   * on a pending task, whose whole budget is less than loading execa
   * (docs/budgets.md#owner-start-up). Both give the same TmuxResult.
   */
  direct?: boolean;
  /** Each call's deadline in ms (default TMUX_DEADLINE_MS). */
  deadlineMs?: number;
  /** Who starts each tmux client instead (the supervisor's one shell: shell-runner.ts); same TmuxResult. */
  runner?: TmuxRunner;
}

/** Starts one tmux client: `bin` with `argv`, killed at the deadline; never throws. */
export type TmuxRunner = (bin: string, argv: readonly string[], deadlineMs: number) => Promise<TmuxResult>;

/** Socket path of the server this process runs in, from $TMUX ("<socket>,<pid>,<session>"). */
export function socketPathFromTmuxEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  const t = env.TMUX;
  if (!t) return null;
  const i = t.lastIndexOf(',', t.lastIndexOf(',') - 1);
  return i > 0 ? t.slice(0, i) : null;
}

/**
 * The session a client inside tmux belongs to, as a target (`$<id>`), from
 * $TMUX's last field. A popup has no $TMUX_PANE, but its $TMUX carries the
 * session it was opened from. Null outside tmux.
 */
export function tmuxEnvSession(env: NodeJS.ProcessEnv = process.env): string | null {
  const m = /,(\d+)$/.exec(env.TMUX ?? '');
  return m && socketPathFromTmuxEnv(env) !== null ? `$${m[1]}` : null;
}

/** What to do when the server a command aims at does not answer: doctor's fix, and that of every command that needs the server. */
export const UNREACHABLE_SERVER_FIX = 'start tmux, or aim at your server with --socket/--socket-path (TMUX_FLEET_SOCKET/TMUX_FLEET_SOCKET_PATH)';

export class Tmux implements TmuxReads {
  constructor(
    readonly socket: SocketChoice = {},
    readonly bin: string = 'tmux',
    readonly options: TmuxOptions = {},
  ) {}

  /** Server selection flags (-L / -S); empty means tmux's own default ($TMUX inside tmux). */
  socketArgs(): string[] {
    if (this.socket.path) return ['-S', this.socket.path];
    if (this.socket.name) return ['-L', this.socket.name];
    return [];
  }

  /** The server, named as the user chose it; with no choice, the one $TMUX names (tmux's own default inside tmux). */
  describeServer(): string {
    if (this.socket.path) return `tmux server at ${this.socket.path}`;
    if (this.socket.name) return `tmux server -L ${this.socket.name}`;
    const fromEnv = socketPathFromTmuxEnv(this.options.env);
    if (fromEnv) return `tmux server at ${fromEnv} (from $TMUX)`;
    return 'the default tmux server';
  }

  /** Runs one tmux command, arguments taken literally; never throws. */
  tryRun(args: readonly string[]): Promise<TmuxResult> {
    return this.spawn(args.map(escapeArg));
  }

  private spawn(args: readonly string[]): Promise<TmuxResult> {
    const argv = [...(this.options.startServer === false ? ['-N'] : []), ...this.socketArgs(), ...args];
    const deadlineMs = this.options.deadlineMs ?? TMUX_DEADLINE_MS;
    const runner = this.options.runner ?? (this.options.direct ? runDirect : runWithExeca);
    return runner(this.bin, argv, deadlineMs);
  }

  /** Runs one tmux command; every argument is taken literally. Throws TmuxError on failure. */
  run(args: readonly string[]): Promise<string> {
    return this.runArgv(args.map(escapeArg));
  }

  /** Several commands in one call. tmux stops at the first failing one and does not undo earlier ones. */
  chain(commands: readonly (readonly string[])[]): Promise<string> {
    return this.runArgv(chainArgs(commands));
  }

  /** Several commands in one call; never throws: the caller sees what the commands before a failure printed. */
  tryChain(commands: readonly (readonly string[])[]): Promise<TmuxResult> {
    return this.spawn(chainArgs(commands));
  }

  private async runArgv(args: readonly string[]): Promise<string> {
    const r = await this.spawn(args);
    if (r.exitCode !== 0) {
      const what = args[0] ?? 'tmux';
      const detail = (r.stderr.trim().split('\n')[0] || `exit ${r.exitCode}`).replace(/\s+/g, ' ');
      throw new TmuxError(`tmux ${what} on ${this.describeServer()}: ${detail}`, args, r.timedOut ? null : r.exitCode, r.stderr, r.timedOut === true);
    }
    return r.stdout;
  }

  /** Expands a format against a session (exact target), in one call. Empty output for a missing session. */
  async display(session: string, format: string): Promise<string> {
    const out = await this.run(['display-message', '-p', '-t', sessionTarget(session), format]);
    return out.replace(/\n$/, '');
  }

  /** Reads chosen formats of every session in one `list-sessions -F` call. */
  async listSessions<K extends string>(fields: Record<K, string>): Promise<Record<K, string>[]> {
    const keys = Object.keys(fields) as K[];
    const format = keys.map((k) => fields[k]).join(FIELD_SEP);
    const out = await this.run(['list-sessions', '-F', format]);
    return parseRows(out, keys);
  }

  /** Sets session options (one call). Values are stored verbatim. */
  setSessionOptions(session: string, options: Record<string, string>): Promise<string> {
    return this.chain(setOptionCommands(session, options));
  }

  /** Every pane of one session with its first process (one `list-panes -s` call): what the pane proof walks up to. */
  async sessionPanes(session: string): Promise<{ session: string; id: string; pid: string; title: string }[]> {
    const out = await this.run(['list-panes', '-s', '-t', sessionTarget(session), '-F', ['#{session_name}', '#{pane_id}', '#{pane_pid}', '#{=100:pane_title}'].join(FIELD_SEP)]);
    return parseRows(out, ['session', 'id', 'pid', 'title'] as const);
  }

  async hasSession(session: string): Promise<boolean> {
    const r = await this.tryRun(['has-session', '-t', sessionTarget(session)]);
    return r.exitCode === 0;
  }

  async killSession(session: string): Promise<void> {
    await this.run(['kill-session', '-t', sessionTarget(session)]);
  }

  /** True when a server answers on this socket. */
  async serverRunning(): Promise<boolean> {
    const r = await this.tryRun(['list-sessions', '-F', '#{session_id}']);
    return r.exitCode === 0;
  }
}

/** What a call that missed its deadline returns: exit 124, as timeout(1) answers. */
export function timedOutResult(deadlineMs: number): TmuxResult {
  return { stdout: '', stderr: `no answer within ${deadlineMs / 1000} s (is the server stopped?)`, exitCode: 124, timedOut: true };
}

/** The part of a child process the deadline needs (execa's and node:child_process's both have it). */
interface Killable {
  kill(signal: NodeJS.Signals): boolean;
  stdout?: { destroy(): void } | null;
  stderr?: { destroy(): void } | null;
}

/**
 * The one deadline of both runners: the call's result, or at the deadline the
 * child killed (SIGKILL: a client waiting on a stopped server may not act on
 * SIGTERM) and a timed-out result. The child's pipes are closed on our side
 * too: tmux hands its client's stdout to the server, so a stopped server holds
 * the pipe open and waiting for its end would wait as long as the server.
 */
async function withDeadline(child: Killable, result: Promise<TmuxResult>, deadlineMs: number): Promise<TmuxResult> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<TmuxResult>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(timedOutResult(deadlineMs));
    }, deadlineMs);
  });
  // The abandoned result settles (or not) on its own; nothing waits for it.
  result.catch(() => undefined);
  try {
    return await Promise.race([result, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function runWithExeca(bin: string, argv: readonly string[], deadlineMs: number): Promise<TmuxResult> {
  try {
    // Loaded on the first call, not at start-up: `owner` on a decided task runs
    // no tmux at all and must not pay for execa's import (docs/budgets.md#owner-start-up).
    const { execa } = await import('execa');
    const child = execa(bin, argv, { reject: false, stdin: 'ignore', stripFinalNewline: false });
    const result = child.then((r): TmuxResult => {
      if (r.failed && r.exitCode === undefined) return { stdout: '', stderr: r.shortMessage || 'tmux could not be run', exitCode: 127 };
      return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode: typeof r.exitCode === 'number' ? r.exitCode : 1 };
    });
    return await withDeadline(child, result, deadlineMs);
  } catch (err) {
    return { stdout: '', stderr: err instanceof Error ? err.message : String(err), exitCode: 127 };
  }
}

/**
 * The same call and result as runWithExeca, through node:child_process
 * (TmuxOptions.direct), and synchronously: its one caller (`owner`) has nothing
 * else to do meanwhile, and spawnSync makes no stream or socket for the pipes
 * (execFile's cost a quarter of that path's budget). At the deadline the client
 * is killed (SIGKILL) and the pipes closed on our side, as withDeadline does.
 */
async function runDirect(bin: string, argv: readonly string[], deadlineMs: number): Promise<TmuxResult> {
  // Imported here, compiled to require(): a decided task loads no process module.
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(bin, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'], timeout: deadlineMs, killSignal: 'SIGKILL' });
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ETIMEDOUT') return timedOutResult(deadlineMs);
  // A number: tmux ran and exited with it. Otherwise it never ran (ENOENT, EACCES) or was killed: 127, as execa's path says.
  if (r.error || typeof r.status !== 'number') return { stdout: '', stderr: r.stderr || r.error?.message || 'tmux could not be run', exitCode: 127 };
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status };
}

export function setOptionCommands(session: string, options: Record<string, string>): string[][] {
  return Object.entries(options).map(([k, v]) => ['set-option', '-t', sessionTarget(session), k, v]);
}

export function parseRows<K extends string>(out: string, keys: readonly K[]): Record<K, string>[] {
  const rows: Record<K, string>[] = [];
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const parts = line.split(FIELD_SEP);
    const row = {} as Record<K, string>;
    keys.forEach((k, i) => {
      // The last field takes the rest, so a stray tab in it is kept.
      row[k] = i === keys.length - 1 ? parts.slice(i).join(FIELD_SEP) : (parts[i] ?? '');
    });
    rows.push(row);
  }
  return rows;
}
