// One tmux control-mode client (`tmux -C attach-session -f ignore-size,no-output`),
// held by the supervisor so that a read costs a line on a pipe, not a process
// (SPEC section 10). Started through execa like every tmux call.
//
// Commands are written as lines that tmux's own parser reads, so this is the
// one place where arguments are quoted rather than passed as argv. Only what
// quotes safely is accepted: `controlLine` refuses an argument holding a single
// quote, a backslash or a control character other than a tab (a newline would
// end the line), and the caller falls back to a plain tmux call with argv.
import type { Tmux, TmuxResult } from './client';
import { sessionTarget } from './args';

/** One argument in single quotes (tmux takes them literally), or null when it cannot be quoted so. */
export function quoteControlArg(arg: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/['\\\u0000-\u0008\u000a-\u001f\u007f]/.test(arg)) return null;
  return `'${arg}'`;
}

/** The line for a chain of commands, or null when an argument cannot be sent safely. */
export function controlLine(commands: readonly (readonly string[])[]): string | null {
  if (commands.length === 0 || commands.some((c) => c.length === 0)) return null;
  const parts: string[] = [];
  for (const command of commands) {
    const quoted = command.map(quoteControlArg);
    if (quoted.some((q) => q === null)) return null;
    parts.push(quoted.join(' '));
  }
  return parts.join(' ; ');
}

/** What the parser reports: a finished reply to one of our commands, or the client going away. */
export type ControlEvent = { kind: 'reply'; ok: boolean; lines: string[] } | { kind: 'exit'; reason: string };

const GUARD = /^%(begin|end|error) (\d+) (\d+) (\d+)$/;

/**
 * Turns control-mode output lines into replies. A reply is the block between
 * `%begin <time> <number> <flags>` and the `%end`/`%error` with the same number;
 * only blocks with flags 1 answer a command this client sent (flags 0: the
 * attach itself). Lines inside a block are output even when they start with `%`.
 */
export class ControlParser {
  private block: { number: string; ours: boolean; lines: string[] } | null = null;

  line(text: string): ControlEvent | null {
    const m = GUARD.exec(text);
    if (this.block) {
      if (m && (m[1] === 'end' || m[1] === 'error') && m[3] === this.block.number) {
        const done = this.block;
        this.block = null;
        return done.ours ? { kind: 'reply', ok: m[1] === 'end', lines: done.lines } : null;
      }
      this.block.lines.push(text);
      return null;
    }
    if (m && m[1] === 'begin') {
      this.block = { number: m[3]!, ours: m[4] === '1', lines: [] };
      return null;
    }
    if (text === '%exit' || text.startsWith('%exit ')) return { kind: 'exit', reason: text.slice(6) || 'control client detached' };
    return null; // a notification (%session-changed, %sessions-changed, ...)
  }
}

interface Waiter {
  resolve(r: TmuxResult): void;
}

/**
 * A control-mode client attached to one session. Replies come in the order the
 * commands were written. When the client goes (its session closed, the server
 * gone), every waiting command and every later one gets exit code 127 and
 * `alive` turns false: the owner starts a new one.
 */
export class ControlClient {
  private waiting: Waiter[] = [];
  private parser = new ControlParser();
  private buffered = '';
  private exited: string | null = null;
  private child: {
    stdin: NodeJS.WritableStream | null;
    kill(signal?: NodeJS.Signals): boolean;
  } | null = null;

  private constructor() {}

  /** Attaches a control client to `session`; resolves once it runs (not once attached). */
  static async start(tmux: Tmux, session: string): Promise<ControlClient> {
    const client = new ControlClient();
    const { execa } = await import('execa');
    // -N: attach-session may start a server; a gone server must stay gone (and no tmux.conf run for it).
    const argv = ['-N', ...tmux.socketArgs(), '-C', 'attach-session', '-f', 'ignore-size,no-output', '-t', sessionTarget(session)];
    const child = execa(tmux.bin, argv, { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', buffer: false, reject: false });
    client.child = child;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-500)));
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => client.take(d));
    child.stdin?.on('error', () => undefined); // a write after tmux left: the exit below says so
    void child.then(
      (r) => client.gone(stderr.trim().split('\n')[0] || `tmux -C exited ${r.exitCode ?? r.signal ?? ''}`.trim()),
      (err: unknown) => client.gone(err instanceof Error ? err.message : String(err)),
    );
    return client;
  }

  get alive(): boolean {
    return this.exited === null;
  }

  /** Runs one command line (see controlLine); the result reads like a tmux invocation's. */
  run(line: string): Promise<TmuxResult> {
    if (this.exited !== null || !this.child?.stdin) return Promise.resolve({ stdout: '', stderr: this.exited ?? 'control client not running', exitCode: 127 });
    return new Promise((resolve) => {
      this.waiting.push({ resolve });
      this.child!.stdin!.write(`${line}\n`);
    });
  }

  /** Detaches: tmux ends a control client when its input ends. */
  close(): void {
    this.child?.stdin?.end();
    this.gone('closed');
  }

  private take(chunk: string): void {
    this.buffered += chunk;
    let i: number;
    while ((i = this.buffered.indexOf('\n')) !== -1) {
      const text = this.buffered.slice(0, i);
      this.buffered = this.buffered.slice(i + 1);
      const event = this.parser.line(text);
      if (!event) continue;
      if (event.kind === 'exit') {
        this.gone(event.reason);
        continue;
      }
      const w = this.waiting.shift();
      const out = event.lines.length > 0 ? `${event.lines.join('\n')}\n` : '';
      w?.resolve(event.ok ? { stdout: out, stderr: '', exitCode: 0 } : { stdout: '', stderr: out, exitCode: 1 });
    }
  }

  private gone(reason: string): void {
    if (this.exited === null) this.exited = reason || 'control client exited';
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.resolve({ stdout: '', stderr: this.exited, exitCode: 127 });
  }
}

/**
 * Runs commands one line each, as one tmux chain would: outputs joined, stopped
 * at the first failure (exit code 1 with its message). Null when a command
 * cannot be sent (see controlLine) or the client went away: run tmux instead.
 */
export async function runChainVia(control: ControlClient, commands: readonly (readonly string[])[]): Promise<TmuxResult | null> {
  const lines = commands.map((c) => controlLine([c]));
  if (lines.length === 0 || lines.some((l) => l === null)) return null;
  let stdout = '';
  for (const line of lines as string[]) {
    const r = await control.run(line);
    if (r.exitCode === 127) return null;
    if (r.exitCode !== 0) return { stdout, stderr: r.stderr, exitCode: 1 };
    stdout += r.stdout;
  }
  return { stdout, stderr: '', exitCode: 0 };
}
