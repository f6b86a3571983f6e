// What commands print, written straight to fd 1 and 2. Touching
// process.stdout loads Node's stream modules, about 3 ms on every `owner`
// call (docs/budgets.md#owner-start-up). A descriptor that cannot take the bytes now (a
// non-blocking pipe: EAGAIN) gets the rest through the stream instead; a
// reader that has gone (EPIPE) gets nothing more.
import { writeSync } from 'node:fs';

/**
 * The last guard for the terminal: a control character other than a tab or a
 * newline never leaves the helper, whatever a caller forgot. Values are made
 * printable where they are shown (src/text.ts); JSON output holds no raw one,
 * so it is never changed by this.
 */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f]+/g;

function writeAll(fd: 1 | 2, text: string): void {
  const buf = Buffer.from(text.replace(TERMINAL_CONTROL, ' '), 'utf8');
  let done = 0;
  try {
    while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // The reader has gone (`tmux-fleet tasks | head`): nobody is left to tell.
    if (code === 'EPIPE') return;
    if (code !== 'EAGAIN') throw err;
    const stream = fd === 1 ? process.stdout : process.stderr;
    if (stream.listenerCount('error') === 0) stream.on('error', onStreamError);
    stream.write(buf.subarray(done));
  }
}

/** The stream's write fails later, with no caller left to throw to: EPIPE is dropped, anything else is one line. */
function onStreamError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') return;
  process.exitCode = 1;
  try {
    writeSync(2, `tmux-fleet: writing output: ${err.message}\n`);
  } catch {
    // stderr is gone too
  }
}

export const writeStdout = (text: string): void => writeAll(1, text);
export const writeStderr = (text: string): void => writeAll(2, text);
