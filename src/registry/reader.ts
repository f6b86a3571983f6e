// Reads Claude Code's registry directory. Only regular files named
// <digits>.json are opened: the *.key files beside them are credentials.
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RegistryRowSchema, type RegistryEntry } from './schema';

export const ROW_FILE_RE = /^\d+\.json$/;
export const MAX_ROW_BYTES = 256 * 1024;
const RETRY_DELAY_MS = 15;

export interface RegistrySnapshot {
  dir: string;
  /** false when the directory itself cannot be read (liveness is then "unknown"). */
  readable: boolean;
  error?: string;
  entries: RegistryEntry[];
  /** Rows skipped: unparseable after one retry, invalid, or over the size cap. */
  malformed: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads at most MAX_ROW_BYTES of a regular file without following links or blocking on FIFOs. */
async function readCapped(file: string): Promise<string | null> {
  const st = await lstat(file);
  if (!st.isFile() || st.size > MAX_ROW_BYTES) return null;
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buf = Buffer.alloc(Math.min(st.size + 1, MAX_ROW_BYTES + 1));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_ROW_BYTES) return null;
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

type RowRead = { entry: RegistryEntry } | { malformed: true } | { gone: true };

async function readRow(file: string): Promise<RowRead> {
  for (let attempt = 0; attempt < 2; attempt++) {
    let text: string | null;
    try {
      text = await readCapped(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { gone: true };
      return { malformed: true };
    }
    if (text === null) return { malformed: true };
    try {
      const parsed = RegistryRowSchema.safeParse(JSON.parse(text));
      return parsed.success ? { entry: { file, row: parsed.data } } : { malformed: true };
    } catch {
      // A writer may have been caught mid-write: try once more.
      if (attempt === 0) await sleep(RETRY_DELAY_MS);
    }
  }
  return { malformed: true };
}

export async function readRegistry(dir: string): Promise<RegistrySnapshot> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No directory yet: Claude Code has not run; that is an empty registry, not an unreadable one.
    if (code === 'ENOENT') return { dir, readable: true, entries: [], malformed: 0 };
    return { dir, readable: false, error: `${dir}: ${(err as Error).message}`, entries: [], malformed: 0 };
  }
  const results = await Promise.all(names.filter((n) => ROW_FILE_RE.test(n)).map((n) => readRow(join(dir, n))));
  const entries: RegistryEntry[] = [];
  let malformed = 0;
  for (const r of results) {
    if ('entry' in r) entries.push(r.entry);
    else if ('malformed' in r) malformed++;
  }
  return { dir, readable: true, entries, malformed };
}
