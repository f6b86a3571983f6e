// Atomic replacement of a file: a temp file in the same directory, fsync,
// rename over, fsync the directory. A reader sees the old or the new file,
// never a torn one; a writer killed mid-way leaves at most a stray temp file.
import { chmod, close, fsync, open, rename, unlink, writeNewFile } from './fs-async';
import { basename, dirname, join } from 'node:path';
import { describeErrno, FleetError } from './errors';

let counter = 0;

/** A temp name unique among this process's writes and other processes' (pid); no crypto needed. */
function tempName(file: string): string {
  counter += 1;
  return join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now().toString(36)}.${counter}.tmp`);
}

/** A write that failed (a full disk, say): one line naming the file, which is as it was. */
function writeFailure(file: string, err: unknown): FleetError {
  return new FleetError(`cannot write ${file}: ${describeErrno(err)}; nothing changed`);
}

export async function writeFileAtomic(file: string, text: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = tempName(file);
  try {
    await writeNewFile(tmp, text, 'wx', mode, true);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw writeFailure(file, err);
  }
  // open() applies the umask; the mode asked for is the mode kept.
  await chmod(tmp, mode).catch(() => undefined);
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw writeFailure(file, err);
  }
  const dir = await open(dirname(file), 'r').catch(() => null);
  if (dir !== null) await fsync(dir).catch(() => undefined).finally(() => close(dir));
}
