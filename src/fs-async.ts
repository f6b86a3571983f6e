// The asynchronous file calls of the helper, on node:fs's callback API.
// Not node:fs/promises: in Node 20 importing it also loads readline and the
// stream modules, about 4 ms on every `owner` call (0.04x `node -e 0`;
// docs/budgets.md#owner-start-up). Files are opened as plain descriptors for the same reason.
// Named imports (xCb: the callback form): a namespace import of node:fs would copy its
// hundred-odd exports at start-up.
import {
  readFile as readFileCb,
  writeFile as writeFileCb,
  mkdir as mkdirCb,
  readdir as readdirCb,
  stat as statCb,
  lstat as lstatCb,
  chmod as chmodCb,
  rename as renameCb,
  unlink as unlinkCb,
  link as linkCb,
  rmdir as rmdirCb,
  rm as rmCb,
  copyFile as copyFileCb,
  realpath as realpathCb,
  open as openCb,
  close as closeCb,
  fsync as fsyncCb,
  fstat as fstatCb,
  read as readCb,
} from 'node:fs';
import { promisify } from 'node:util';

export const readFile = promisify(readFileCb);
export const writeFile = promisify(writeFileCb);
export const mkdir = promisify(mkdirCb);
export const readdir = promisify(readdirCb);
export const stat = promisify(statCb);
export const lstat = promisify(lstatCb);
export const chmod = promisify(chmodCb);
export const rename = promisify(renameCb);
export const unlink = promisify(unlinkCb);
export const link = promisify(linkCb);
export const rmdir = promisify(rmdirCb);
export const rm = promisify(rmCb);
export const copyFile = promisify(copyFileCb);
export const realpath = promisify(realpathCb);
export const open = promisify(openCb);
export const close = promisify(closeCb);
export const fsync = promisify(fsyncCb);
export const fstat = promisify(fstatCb);
export const read = promisify(readCb);

/** Writes text to a file opened with flags (e.g. 'wx'), fsyncs it when asked, and closes it. */
export async function writeNewFile(path: string, text: string | Buffer, flags: string, mode: number, sync: boolean): Promise<void> {
  const fd = await open(path, flags, mode);
  try {
    await writeFile(fd, text);
    if (sync) await fsync(fd);
  } finally {
    await close(fd);
  }
}
