// <home>/log: where problems go when there is nobody to tell (hooks, the
// supervisor, run-shell jobs). One line per entry: ISO-8601 time, who, pid,
// the message with control characters escaped (`\x1b`, `\x00`), so a value
// quoted from a file or from tmux can neither split a line nor reach the
// terminal of whoever reads the log. The file is 0600 whoever created it, and
// is written only in a home that is the user's alone.
// Never throws.
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirTrustProblem, logFile } from './context';

/** The message as one line: line breaks joined by a space, other control characters escaped. */
export function logLine(message: string): string {
  return message
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function appendLog(home: string, who: string, message: string): void {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // Only into a home that is ours alone (docs/tasks.md#file-modes): another user's home gets nothing of ours.
    if (dirTrustProblem(home)) return;
    const line = `${new Date().toISOString()} ${logLine(who)}[${process.pid}]: ${logLine(message)}\n`;
    // No link followed, no FIFO waited on (O_NONBLOCK: ENXIO without a reader, and the entry is dropped).
    const fd = openSync(
      logFile(home),
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o600,
    );
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return;
      // Made by a shell redirect (umask 022) or by hand: nobody else reads it.
      if ((st.mode & 0o077) !== 0) fchmodSync(fd, st.mode & 0o700);
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* the log is best effort */
  }
}
