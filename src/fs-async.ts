// The asynchronous file calls of the helper, on node:fs's callback API.
// Not node:fs/promises: in Node 20 importing it also loads readline and the
// stream modules, about 4 ms on every `owner` call (0.04x `node -e 0`;
// docs/budgets.md#owner-start-up). Files are opened as plain descriptors for the same reason.
import * as fs from 'node:fs';
import { promisify } from 'node:util';

export const readFile = promisify(fs.readFile);
export const writeFile = promisify(fs.writeFile);
export const mkdir = promisify(fs.mkdir);
export const readdir = promisify(fs.readdir);
export const stat = promisify(fs.stat);
export const lstat = promisify(fs.lstat);
export const chmod = promisify(fs.chmod);
export const rename = promisify(fs.rename);
export const unlink = promisify(fs.unlink);
export const link = promisify(fs.link);
export const rmdir = promisify(fs.rmdir);
export const rm = promisify(fs.rm);
export const copyFile = promisify(fs.copyFile);
export const realpath = promisify(fs.realpath);
export const open = promisify(fs.open);
export const close = promisify(fs.close);
export const fsync = promisify(fs.fsync);
export const fstat = promisify(fs.fstat);
export const read = promisify(fs.read);

/** Writes text to a file opened with flags (e.g. 'wx'), fsyncs it when asked, and closes it. */
export async function writeNewFile(path: string, text: string, flags: string, mode: number, sync: boolean): Promise<void> {
  const fd = await open(path, flags, mode);
  try {
    await writeFile(fd, text);
    if (sync) await fsync(fd);
  } finally {
    await close(fd);
  }
}
