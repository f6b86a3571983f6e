// What commands print, written straight to fd 1 and 2. Touching
// process.stdout loads Node's stream modules, about 3 ms on every `owner`
// call (SPEC section 10). A descriptor that cannot take the bytes now (a
// non-blocking pipe: EAGAIN) gets the rest through the stream instead.
import { writeSync } from 'node:fs';

function writeAll(fd: 1 | 2, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    (fd === 1 ? process.stdout : process.stderr).write(buf.subarray(done));
  }
}

export const writeStdout = (text: string): void => writeAll(1, text);
export const writeStderr = (text: string): void => writeAll(2, text);
