// The supervisor's tmux calls, started by one long-lived /bin/sh rather than
// by node itself (docs/tmux.md#one-shell-for-the-supervisor): node forks its
// whole address space for each child, which made a tmux call cost the
// supervisor about twice what the call itself costs, and more the larger its
// heap. The shell is small, so its fork is cheap whatever the fleet.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { timedOutResult, type TmuxResult } from './client';

/** One argument for sh, taken literally: in single quotes nothing is special but `'`, which is closed, escaped and reopened. */
export function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

interface Call {
  bin: string;
  argv: readonly string[];
  deadlineMs: number;
  resolve(result: TmuxResult): void;
}

export class ShellRunner {
  private sh: ChildProcess | null = null;
  /**
   * The current call's stdout as it came, in pieces: joined once, at its end.
   * Searching the whole of it at each piece flattened it again and again: a
   * read of 500 sessions (hundreds of KiB) left megabytes of garbage.
   */
  private stdoutPieces: string[] = [];
  /** Characters received on stdout so far, and the last few of them (where an end mark may begin). */
  private stdoutLength = 0;
  private stdoutTail = '';
  /** The current call's end on stdout, once seen: where it starts, how long it is, the exit code. */
  private stdoutEndAt: { index: number; length: number; exitCode: number } | null = null;
  private stderr = '';
  private current: (Call & { timer: NodeJS.Timeout }) | null = null;
  private readonly queue: Call[] = [];
  /**
   * Ends each call's output on both streams. Random, and never in the shell's
   * command line: what tmux prints (an option an agent wrote, say) cannot end
   * a call early.
   */
  private readonly mark = `fleet-end-${randomBytes(16).toString('hex')}`;
  /** The end of a call on stdout: the mark and the exit code, on a line of their own. */
  private readonly stdoutEnd = new RegExp(`\\n${this.mark} (\\d+)\\n`);

  /** Runs one tmux client through the shell; calls run one at a time, in order. Never throws. */
  run(bin: string, argv: readonly string[], deadlineMs: number): Promise<TmuxResult> {
    return new Promise((resolve) => {
      this.queue.push({ bin, argv, deadlineMs, resolve });
      this.next();
    });
  }

  /** Ends the shell (it exits at the end of its input); a later call starts another. */
  close(): void {
    this.sh?.stdin?.end();
    this.sh = null;
  }

  private next(): void {
    if (this.current) return;
    const call = this.queue.shift();
    if (!call) return;
    const sh = this.sh ?? this.start();
    if (!sh) return call.resolve({ stdout: '', stderr: 'could not start /bin/sh to run tmux', exitCode: 127 });
    // At the deadline the shell goes with its client (a stopped server holds the client forever); the next call starts a new one.
    const timer = setTimeout(() => this.expire(), call.deadlineMs);
    this.current = { ...call, timer };
    const command = [call.bin, ...call.argv].map(shellQuote).join(' ');
    sh.stdin?.write(`${command} </dev/null; printf '\\n${this.mark} %d\\n' "$?"; printf '\\n${this.mark}\\n' >&2\n`);
  }

  private start(): ChildProcess | null {
    let sh: ChildProcess;
    try {
      // Its own process group, so a deadline ends the shell and the client it waits on together.
      sh = spawn('/bin/sh', ['-s'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch {
      return null;
    }
    this.sh = sh;
    this.resetStdout('');
    this.stderr = '';
    // Neither the shell nor its pipes keep the process alive; a call in flight does, by its deadline's timer.
    sh.unref();
    for (const stream of [sh.stdin, sh.stdout, sh.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    sh.stdout?.setEncoding('utf8');
    sh.stderr?.setEncoding('utf8');
    sh.stdout?.on('data', (d: string) => {
      if (this.sh !== sh) return;
      this.addStdout(d);
      this.settle();
    });
    sh.stderr?.on('data', (d: string) => {
      if (this.sh !== sh) return;
      this.stderr += d;
      this.settle();
    });
    sh.stdin?.on('error', () => undefined);
    sh.on('error', () => this.lost(sh, 'could not start /bin/sh to run tmux'));
    sh.on('exit', () => this.lost(sh, 'the shell that runs tmux exited'));
    return sh;
  }

  /** A piece of stdout: kept, and searched for the end mark where it can be (the new piece and the tail before it). */
  private addStdout(d: string): void {
    this.stdoutPieces.push(d);
    const window = this.stdoutTail + d;
    const start = this.stdoutLength - this.stdoutTail.length;
    this.stdoutLength += d.length;
    // A mark, its code and its two newlines: shorter than this.
    this.stdoutTail = window.slice(-(this.mark.length + 32));
    if (this.stdoutEndAt !== null) return;
    const end = this.stdoutEnd.exec(window);
    if (end) this.stdoutEndAt = { index: start + end.index, length: end[0].length, exitCode: Number(end[1]) };
  }

  /** Starts stdout again from `rest` (what came after a call's end mark). */
  private resetStdout(rest: string): void {
    this.stdoutPieces = [];
    this.stdoutLength = 0;
    this.stdoutTail = '';
    this.stdoutEndAt = null;
    if (rest !== '') this.addStdout(rest);
  }

  /** The current call's result once both streams carry its end mark. */
  private settle(): void {
    const call = this.current;
    if (!call) return;
    const end = this.stdoutEndAt;
    const errEnd = this.stderr.indexOf(`\n${this.mark}\n`);
    if (!end || errEnd < 0) return;
    const stdout = this.stdoutPieces.length === 1 ? (this.stdoutPieces[0] as string) : this.stdoutPieces.join('');
    const result = { stdout: stdout.slice(0, end.index), stderr: this.stderr.slice(0, errEnd), exitCode: end.exitCode };
    this.resetStdout(stdout.slice(end.index + end.length));
    this.stderr = this.stderr.slice(errEnd + this.mark.length + 2);
    this.finish(call, result);
  }

  private finish(call: Call & { timer: NodeJS.Timeout }, result: TmuxResult): void {
    clearTimeout(call.timer);
    this.current = null;
    call.resolve(result);
    this.next();
  }

  private expire(): void {
    const call = this.current;
    if (!call) return;
    const sh = this.sh;
    this.sh = null;
    if (sh?.pid !== undefined) {
      try {
        process.kill(-sh.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const stream of [sh?.stdout, sh?.stderr] as (Readable | null | undefined)[]) stream?.destroy();
    this.finish(call, timedOutResult(call.deadlineMs));
  }

  /** The shell went away: the call it held fails, and the next call starts another. */
  private lost(sh: ChildProcess, why: string): void {
    if (this.sh !== sh) return;
    this.sh = null;
    const call = this.current;
    if (call) this.finish(call, { stdout: '', stderr: this.stderr || why, exitCode: 127 });
  }
}
