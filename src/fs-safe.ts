// The one way the helper reads a file that someone else could have replaced
// (task.json, a lock, settings.json, a pid file): no symbolic link is
// followed, nothing blocks (a FIFO opened with O_NONBLOCK returns at once and
// is refused by fstat), only regular files are read, and never more than a
// cap. Errors name the file and what it is, never its content.
// See docs/tasks.md#reading-files-safely.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Why a file was not read. `code` is the errno of a failed open (ENOENT, EACCES, ...) or one of ours. */
export class UnsafeFileError extends Error {
  constructor(
    readonly file: string,
    /** ELOOP: a symbolic link; ENOTREG: not a regular file; EFBIG: over the cap; else the open's errno. */
    readonly code: string,
    /** What is wrong, without the file name: "is a symbolic link (not followed)". */
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'UnsafeFileError';
  }
}

/** "a FIFO", "a directory", ...: what a non-regular file is, for an error. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** Reads from fd until EOF or until more than maxBytes came; null when over. */
function readCapped(fd: number, maxBytes: number, sizeHint: number, scratch?: Buffer): Buffer | null {
  let buf = scratch && scratch.length > maxBytes ? scratch : Buffer.allocUnsafe(Math.min(Math.max(sizeHint, 0) + 1, maxBytes + 1) || 1);
  let total = 0;
  for (;;) {
    if (total === buf.length) {
      if (total > maxBytes) return null;
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
      buf.copy(bigger, 0, 0, total);
      buf = bigger;
    }
    const n = readSync(fd, buf, total, buf.length - total, null);
    if (n === 0) break;
    total += n;
  }
  return total > maxBytes ? null : buf.subarray(0, total);
}

function openError(file: string, err: unknown): UnsafeFileError | unknown {
  const code = (err as NodeJS.ErrnoException).code;
  // O_NOFOLLOW on a symbolic link fails with ELOOP.
  if (code === 'ELOOP') return new UnsafeFileError(file, 'ELOOP', 'is a symbolic link (not followed)');
  if (code === 'ENOENT') return new UnsafeFileError(file, 'ENOENT', 'does not exist');
  if (typeof code === 'string') return new UnsafeFileError(file, code, `cannot be opened (${code})`);
  return err;
}

/**
 * Opens a file for reading without following a link or waiting on a FIFO, and
 * checks it is a regular file (closed again when it is not). Throws UnsafeFileError.
 */
function openRegularFile(file: string): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError(file, 'ENOTREG', `is ${fileKind(st)}, not a regular file (not read)`);
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * The bytes of a regular file, at most maxBytes. Throws UnsafeFileError
 * (code ENOENT when it does not exist).
 * Synchronous: these files are small, and the open cannot block.
 * `scratch` (longer than maxBytes): read into it, and the bytes returned are a
 * view of it, good until its next use (a reader of many files allocates once).
 */
export function readRegularFileBytes(file: string, maxBytes: number, scratch?: Buffer): Buffer {
  const { fd, st } = openRegularFile(file);
  try {
    if (st.size > maxBytes) throw new UnsafeFileError(file, 'EFBIG', `is larger than ${formatBytes(maxBytes)} (not read)`);
    const bytes = readCapped(fd, maxBytes, st.size, scratch);
    // It grew past the cap while being read.
    if (bytes === null) throw new UnsafeFileError(file, 'EFBIG', `is larger than ${formatBytes(maxBytes)} (not read)`);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * The last maxBytes of a regular file (all of it when smaller), opened as
 * readRegularFileBytes opens (no link followed, no FIFO waited on); `cut`
 * tells whether its start was left out. For logs that only grow (a transcript).
 */
export function readRegularFileTail(file: string, maxBytes: number): { bytes: Buffer; cut: boolean } {
  const { fd, st } = openRegularFile(file);
  try {
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.allocUnsafe(Math.min(st.size, maxBytes));
    let total = 0;
    while (total < buf.length) {
      const n = readSync(fd, buf, total, buf.length - total, start + total);
      if (n === 0) break;
      total += n;
    }
    return { bytes: buf.subarray(0, total), cut: start > 0 };
  } finally {
    closeSync(fd);
  }
}

/**
 * The first maxBytes of a regular file (all of it when smaller), opened as
 * readRegularFileBytes opens; `cut` tells whether more followed. For a file
 * of which only its start matters (a chat's first line), whatever its size.
 */
export function readRegularFileHead(file: string, maxBytes: number): { bytes: Buffer; cut: boolean } {
  const { fd, st } = openRegularFile(file);
  try {
    const buf = Buffer.allocUnsafe(Math.min(Math.max(st.size, 0), maxBytes));
    let total = 0;
    while (total < buf.length) {
      const n = readSync(fd, buf, total, buf.length - total, total);
      if (n === 0) break;
      total += n;
    }
    return { bytes: buf.subarray(0, total), cut: st.size > total };
  } finally {
    closeSync(fd);
  }
}

/** readRegularFileBytes as UTF-8 text. */
export function readRegularFile(file: string, maxBytes: number): string {
  return readRegularFileBytes(file, maxBytes).toString('utf8');
}

/** readRegularFile, or null when the file does not exist. */
export function readRegularFileIfExists(file: string, maxBytes: number): string | null {
  try {
    return readRegularFile(file, maxBytes);
  } catch (err) {
    if (err instanceof UnsafeFileError && err.code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * A file the user named on the command line (`--prompt-file`): links are
 * followed and pipes are read (`<(…)`), as `cat` would, but never more than
 * maxBytes (`/dev/zero` ends with an error, not an endless read).
 * Throws UnsafeFileError; EFBIG names the cap.
 */
export function readUserFile(file: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY);
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UnsafeFileError(file, 'ENOTREG', 'is a directory');
    if (st.isFile() && st.size > maxBytes) throw new UnsafeFileError(file, 'EFBIG', `is larger than ${formatBytes(maxBytes)}, the limit`);
    const bytes = readCapped(fd, maxBytes, st.isFile() ? st.size : 4096);
    if (bytes === null) throw new UnsafeFileError(file, 'EFBIG', `holds more than ${formatBytes(maxBytes)}, the limit`);
    return bytes.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
