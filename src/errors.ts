// Typed errors. Core modules throw these and never call process.exit;
// src/cli/main.ts maps them to exit codes in one place.

export class FleetError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad arguments or input the user can fix: exit 2. */
export class UsageError extends FleetError {
  override readonly exitCode = 2;
}

/** A tmux call failed (or tmux could not be run). */
export class TmuxError extends FleetError {
  constructor(
    message: string,
    readonly argv: readonly string[],
    readonly tmuxExitCode: number | null,
    readonly stderr: string,
    /** tmux did not answer before the deadline (src/tmux/client.ts TMUX_DEADLINE_MS). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** A task.json that does not parse or validate. Never overwritten. */
export class TaskFileError extends FleetError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** A command's outcome that is not an error but a non-zero answer (owner's 9 and 5, takeover refused). */
export class ExitWith extends FleetError {
  constructor(
    override readonly exitCode: number,
    message = '',
  ) {
    super(message);
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * What a failed system call says, for a message that names the file itself:
 * "no space left on device (ENOSPC)" (Node's own message names the call, not the file).
 */
export function describeErrno(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string') return errorMessage(err);
  const what = /^[A-Z0-9_]+: ([^,]+)/.exec(e.message ?? '')?.[1];
  return what ? `${what} (${e.code})` : e.code;
}
