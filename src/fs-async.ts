// The asynchronous file calls of the helper, on node:fs's callback API.
// Not node:fs/promises: in Node 20 importing it also loads readline and the
// stream modules, about 4 ms on every `owner` call (0.04x `node -e 0`;
// docs/budgets.md#owner-start-up). Files are opened as plain descriptors for the same reason.
// Named imports: a namespace import of node:fs would copy its hundred-odd exports at start-up.
import {
  readFile as fs_readFile,
  writeFile as fs_writeFile,
  mkdir as fs_mkdir,
  readdir as fs_readdir,
  stat as fs_stat,
  lstat as fs_lstat,
  chmod as fs_chmod,
  rename as fs_rename,
  unlink as fs_unlink,
  link as fs_link,
  rmdir as fs_rmdir,
  rm as fs_rm,
  copyFile as fs_copyFile,
  realpath as fs_realpath,
  open as fs_open,
  close as fs_close,
  fsync as fs_fsync,
  fstat as fs_fstat,
  read as fs_read,
} from 'node:fs';
import { promisify } from 'node:util';

export const readFile = promisify(fs_readFile);
export const writeFile = promisify(fs_writeFile);
export const mkdir = promisify(fs_mkdir);
export const readdir = promisify(fs_readdir);
export const stat = promisify(fs_stat);
export const lstat = promisify(fs_lstat);
export const chmod = promisify(fs_chmod);
export const rename = promisify(fs_rename);
export const unlink = promisify(fs_unlink);
export const link = promisify(fs_link);
export const rmdir = promisify(fs_rmdir);
export const rm = promisify(fs_rm);
export const copyFile = promisify(fs_copyFile);
export const realpath = promisify(fs_realpath);
export const open = promisify(fs_open);
export const close = promisify(fs_close);
export const fsync = promisify(fs_fsync);
export const fstat = promisify(fs_fstat);
export const read = promisify(fs_read);

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
