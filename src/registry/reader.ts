// Reads Claude Code's registry directory. Only regular files named
// <digits>.json are opened: the *.key files beside them are credentials.
import { lstatSync } from 'node:fs';
import { dirTrustProblem, type DirProblem } from '../context';
import { readRegularFileBytes, UnsafeFileError } from '../fs-safe';
import { compactJsonText } from './compact-json';
import { ownString } from '../text';
import { listedPids, pidExists } from '../proc';
import { readdir } from '../fs-async';
import { basename, join } from 'node:path';
import { MAX_KEPT_CHARS, RegistryRowSchema, type RegistryEntry, type RegistryRow } from './schema';

export { MAX_KEPT_CHARS };
export const ROW_FILE_RE = /^\d+\.json$/;
export const MAX_ROW_BYTES = 256 * 1024;
export const RETRY_DELAY_MS = 15;
/**
 * The rows a reader keeps: Claude Code writes one per live process and
 * removes it on exit, so this is far more than any machine holds; it bounds
 * what a long-lived reader keeps (docs/hop.md#reading-the-registry). Over it,
 * the rows of running processes are kept first, then the rows the caller
 * asks for, then the newest (by mtime).
 */
export const MAX_KEPT_ROWS = 1000;

/** The fields of a row tmux-fleet reads: the schema's, and two read without it. */
const KEPT_FIELDS = [...Object.keys(RegistryRowSchema.shape), 'tempo', 'procStartFt'];

/** A string of at most MAX_KEPT_CHARS, copied: a slice would keep the whole parsed text alive. */
function keptString(v: string): string {
  return v.length > MAX_KEPT_CHARS ? ownString(`${v.slice(0, MAX_KEPT_CHARS - 1)}…`) : v;
}

/**
 * What a reader keeps of a row: the fields tmux-fleet reads, long strings cut.
 * A row may hold 256 KiB of keys nobody reads; the supervisor keeps hundreds
 * of rows for hours (docs/hop.md#reading-the-registry).
 */
function keptRow(row: RegistryRow): RegistryRow {
  const out: Record<string, unknown> = {};
  const all = row as Record<string, unknown>;
  for (const k of KEPT_FIELDS) {
    const v = all[k];
    if (v !== undefined) out[k] = typeof v === 'string' ? keptString(v) : v;
  }
  return out as RegistryRow;
}

/**
 * The MAX_KEPT_ROWS row files to read, and how many were left out: first
 * those named by a running pid (a row file is named <pid>.json; the row's own
 * pid is what liveness judges), then those in `wanted`, then the newest by
 * mtime (lstat).
 */
function rowsToKeep(dir: string, names: readonly string[], wanted: ReadonlySet<string> = new Set()): { names: string[]; overCap: number; floor: KeptRank | null } {
  if (names.length <= MAX_KEPT_ROWS) return { names: [...names], overCap: 0, floor: null };
  const running = listedPids();
  const rank = (name: string) => (running?.has(name.slice(0, -'.json'.length)) ? 2 : wanted.has(name) ? 1 : 0);
  const ranked = names.map((name) => ({ name, rank: rank(name), mtime: lstatSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }));
  ranked.sort(byRank);
  return { names: ranked.slice(0, MAX_KEPT_ROWS).map((x) => x.name).sort(), overCap: names.length - MAX_KEPT_ROWS, floor: ranked[MAX_KEPT_ROWS - 1] ?? null };
}

/** Where a row file stands when over the cap: a running process's first, then one the caller wants, then the newest. */
interface KeptRank {
  name: string;
  rank: number;
  mtime: number;
}

const byRank = (a: KeptRank, b: KeptRank) => b.rank - a.rank || b.mtime - a.mtime || (a.name < b.name ? -1 : 1);

export interface RegistrySnapshot {
  dir: string;
  /** false when the directory itself cannot be read (liveness is then "unknown"). */
  readable: boolean;
  error?: string;
  entries: RegistryEntry[];
  /** Rows skipped: unparseable after one retry, invalid, not a regular file, or over the size cap. */
  malformed: number;
  /** Set when the directory is not the user's alone: nothing in it is read (unreadable, liveness unknown). */
  untrusted?: DirProblem;
  /** Row files not read: over MAX_KEPT_ROWS, the oldest. */
  overCap?: number;
}

/**
 * The snapshot of a registry another user could write to, or null: its rows
 * could say anything (a Driver's row rewritten under a new session id reads
 * as a /clear), so none is read (docs/hop.md#reading-the-registry).
 */
function untrustedSnapshot(dir: string): RegistrySnapshot | null {
  const refused = registryRefusal(dir);
  return refused && { dir, readable: false, error: refused.error, entries: [], malformed: 0, untrusted: refused.problem };
}

/**
 * Why a registry directory is not read, whichever Claude home it is of (the
 * supervisor's, or another one an agent runs with): not the user's alone. Null: it is read.
 */
export function registryRefusal(dir: string): { problem: DirProblem; error: string } | null {
  const problem = dirTrustProblem(dir);
  return problem && { problem, error: `${dir} ${problem.problem}; not read (fix: ${problem.fix})` };
}

export interface ReadOptions {
  /** Pause before the one retry of a file that did not parse (default RETRY_DELAY_MS). */
  retryDelayMs?: number;
  /** Called when a file did not parse, before the pause and the retry (tests use it to finish a torn write). */
  onRetry?: (file: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads at most MAX_ROW_BYTES of a regular file without following links or
 * blocking on FIFOs: the helper's one safe reader (src/fs-safe.ts). null: not
 * a regular file, or over the cap; a missing file throws (code ENOENT).
 * Synchronous on purpose: a row is a few hundred bytes, and five thread-pool
 * round trips per row cost the supervisor more than the reads themselves
 * (docs/budgets.md#the-status-line-and-the-supervisor).
 */
function readCapped(file: string): string | null {
  try {
    scratch ??= Buffer.allocUnsafe(MAX_ROW_BYTES + 1);
    const bytes = readRegularFileBytes(file, MAX_ROW_BYTES, scratch);
    return bytes.length > COMPACT_FROM_BYTES ? compactJsonText(bytes, MAX_KEPT_CHARS) : bytes.toString('utf8');
  } catch (err) {
    if (err instanceof UnsafeFileError && (err.code === 'ELOOP' || err.code === 'ENOTREG' || err.code === 'EFBIG')) return null;
    throw err;
  }
}

/** One buffer for every row file read (synchronously, one at a time): no 256 KiB allocation per big row. */
let scratch: Buffer | null = null;
/** Files above this size have their long strings cut before parsing (src/registry/compact-json.ts); a real row is far smaller. */
const COMPACT_FROM_BYTES = 16 * 1024;

type RowRead = { entry: RegistryEntry } | { malformed: true } | { gone: true };

/** One read of a row file; `torn`: not JSON (a writer may have been caught mid-write). */
function readRowOnce(file: string): RowRead | { torn: true } {
  let text: string | null;
  try {
    text = readCapped(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { gone: true } : { malformed: true };
  }
  if (text === null) return { malformed: true };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { torn: true };
  }
  const parsed = RegistryRowSchema.safeParse(json);
  return parsed.success ? { entry: { file, row: keptRow(parsed.data) } } : { malformed: true };
}

async function readRow(file: string, opts: ReadOptions): Promise<RowRead> {
  const first = readRowOnce(file);
  if (!('torn' in first)) return first;
  // A writer may have been caught mid-write: try once more.
  opts.onRetry?.(file);
  await sleep(opts.retryDelayMs ?? RETRY_DELAY_MS);
  const second = readRowOnce(file);
  return 'torn' in second ? { malformed: true } : second;
}

/**
 * One row file, read at once as every row is (the safe reader, the cap, the
 * schema, the fields kept), without the retry: a row of another Claude home
 * (src/agents/discover.ts), looked at again while its session waits. Its
 * directory is the caller's to check first (registryRefusal).
 */
export function readRowFile(file: string): RowRead {
  const r = readRowOnce(file);
  return 'torn' in r ? { malformed: true } : r;
}

export async function readRegistry(dir: string, opts: ReadOptions = {}): Promise<RegistrySnapshot> {
  const untrusted = untrustedSnapshot(dir);
  if (untrusted) return untrusted;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No directory yet: Claude Code has not run; that is an empty registry, not an unreadable one.
    if (code === 'ENOENT') return { dir, readable: true, entries: [], malformed: 0 };
    return { dir, readable: false, error: `${dir}: ${(err as Error).message}`, entries: [], malformed: 0 };
  }
  const { names: rowNames, overCap } = rowsToKeep(dir, names.filter((n) => ROW_FILE_RE.test(n)).sort());
  const results = await Promise.all(rowNames.map((n) => readRow(join(dir, n), opts)));
  const entries: RegistryEntry[] = [];
  let malformed = 0;
  for (const r of results) {
    if ('entry' in r) entries.push(r.entry);
    else if ('malformed' in r) malformed++;
  }
  return { dir, readable: true, entries, malformed, ...(overCap > 0 ? { overCap } : {}) };
}

/**
 * A reader that keeps what it read: a file whose inode, size and mtime are
 * unchanged is not opened again. The supervisor wakes on every registry
 * change, and one changed row should cost one read, not two hundred.
 */
/** A row file that changed: what it held before and holds now (null: no valid row). */
export interface RowChange {
  file: string;
  before: RegistryRow | null;
  after: RegistryRow | null;
}

export class CachedRegistryReader {
  private files = new Map<string, { sig: string; read: RowRead }>();
  /** Row files opened so far (the supervisor's stats: a wake for one changed row opens one). */
  filesRead = 0;
  /**
   * The rows the last read found changed, or null when it looked at every
   * file (a full read: anything may have changed).
   */
  lastChanges: RowChange[] | null = null;

  constructor(
    readonly dir: string,
    private readonly opts: ReadOptions = {},
  ) {}

  private readable = false;

  /**
   * `changed`: the file names a watch reported since the last read; only those
   * are looked at. null (or a cold cache): every file is.
   */
  async read(changed: ReadonlySet<string> | null = null): Promise<RegistrySnapshot> {
    const untrusted = untrustedSnapshot(this.dir);
    if (untrusted) {
      this.files.clear();
      this.readable = false;
      this.lastChanges = null;
      return untrusted;
    }
    if (changed !== null && this.readable) return this.readChanged(changed);
    this.lastChanges = null;
    const { dir } = this;
    this.readable = false;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      this.files.clear();
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { dir, readable: true, entries: [], malformed: 0 };
      return { dir, readable: false, error: `${dir}: ${(err as Error).message}`, entries: [], malformed: 0 };
    }
    const kept = rowsToKeep(dir, names.filter((n) => ROW_FILE_RE.test(n)).sort(), this.wanted);
    const rowNames = kept.names;
    this.overCap = kept.overCap;
    this.floor = kept.floor;
    const seen = new Set(rowNames);
    for (const name of [...this.files.keys()]) if (!seen.has(name)) this.files.delete(name);
    // lstatSync: two hundred stats in a row cost less than two hundred promises.
    const results = await Promise.all(
      rowNames.map(async (name): Promise<RowRead> => {
        const file = join(dir, name);
        const st = lstatSync(file, { throwIfNoEntry: false });
        if (!st) return { gone: true };
        const sig = `${st.ino}:${st.size}:${st.mtimeMs}:${st.isFile()}`;
        const cached = this.files.get(name);
        if (cached && cached.sig === sig) return cached.read;
        this.filesRead++;
        const read = await readRow(file, this.opts);
        // A torn row is read again next time, whatever its signature.
        if ('entry' in read) this.files.set(name, { sig, read });
        else this.files.delete(name);
        return read;
      }),
    );
    this.malformed = new Set(rowNames.filter((_, i) => 'malformed' in (results[i] as RowRead)));
    this.readable = true;
    this.entries = this.collect();
    return this.snapshot();
  }

  private malformed = new Set<string>();
  private overCap = 0;
  /** Over the cap: the last row file kept, by rank (a new file that does not outrank it is not read). */
  private floor: KeptRank | null = null;
  /** The row files the caller needs kept when over the cap (a task's owner, a chain's rows), by name. */
  private wanted: ReadonlySet<string> = new Set();

  /** Names the row files to keep first, after those of running processes, when there are more than MAX_KEPT_ROWS. */
  keepFirst(files: ReadonlySet<string>): void {
    this.wanted = files;
  }

  private async readChanged(changed: ReadonlySet<string>): Promise<RegistrySnapshot> {
    // Past the cap once these are added: choose the rows to keep from every file first, so none over it is read.
    // A new file that would not outrank the last one kept (an old row of a dead process) stays over the cap, unread.
    let adding = 0;
    const below = new Set<string>();
    for (const name of changed) {
      if (!ROW_FILE_RE.test(name) || this.files.has(name)) continue;
      const st = lstatSync(join(this.dir, name), { throwIfNoEntry: false });
      if (!st) continue;
      if (this.floor !== null && this.files.size + adding >= MAX_KEPT_ROWS && !this.outranksFloor(name, st.mtimeMs)) below.add(name);
      else adding++;
    }
    if (adding > 0 && this.files.size + adding > MAX_KEPT_ROWS) return this.read(null);
    const changes: RowChange[] = [];
    for (const name of changed) {
      if (!ROW_FILE_RE.test(name) || below.has(name)) continue;
      const file = join(this.dir, name);
      const st = lstatSync(file, { throwIfNoEntry: false });
      const cached = this.files.get(name);
      const sig = st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.isFile()}` : '';
      // Read even when its signature is unchanged: two writes of one size within the clock's tick look alike.
      const before = cached && 'entry' in cached.read ? cached.read.entry.row : null;
      this.files.delete(name);
      this.malformed.delete(name);
      let after: RegistryRow | null = null;
      if (st) {
        this.filesRead++;
        const read = await readRow(file, this.opts);
        if ('entry' in read) {
          this.files.set(name, { sig, read });
          after = read.entry.row;
        } else if ('malformed' in read) this.malformed.add(name);
      }
      if (before !== null || after !== null) changes.push({ file, before, after });
    }
    this.lastChanges = changes;
    if (this.entries === null || changes.some((c) => c.before === null || c.after === null)) this.entries = this.collect();
    else if (changes.length > 0) this.entries = this.patched(changes);
    return this.snapshot();
  }

  /** Whether a row file not held would be kept by a full read now, before the last one kept (rowsToKeep's order). */
  private outranksFloor(name: string, mtime: number): boolean {
    const floor = this.floor as KeptRank;
    const rank = pidExists(Number(name.slice(0, -'.json'.length))) ? 2 : this.wanted.has(name) ? 1 : 0;
    return byRank({ name, rank, mtime }, floor) < 0;
  }

  /** The entries with rows rewritten in place (each file held before and after): no sort of every name again. */
  private patched(changes: readonly RowChange[]): RegistryEntry[] {
    const entries = [...(this.entries ?? [])];
    for (const c of changes) {
      const i = this.entryIndex.get(basename(c.file));
      const read = this.files.get(basename(c.file))?.read;
      if (i === undefined || !read || !('entry' in read)) return this.collect();
      entries[i] = read.entry;
    }
    return entries;
  }

  /** A row file's place in the entries of the last read (undefined: not held). */
  entryPosition(file: string): number | undefined {
    return this.entryIndex.get(basename(file));
  }

  /** The entries of the last read, kept while no row changes (a wake for a job's state file reads no row). */
  private entries: RegistryEntry[] | null = null;

  /** Each held file's place in the entries of the last collect(). */
  private entryIndex = new Map<string, number>();

  private collect(): RegistryEntry[] {
    const entries: RegistryEntry[] = [];
    this.entryIndex = new Map();
    for (const name of [...this.files.keys()].sort()) {
      const r = this.files.get(name)?.read;
      if (r && 'entry' in r) {
        this.entryIndex.set(name, entries.length);
        entries.push(r.entry);
      }
    }
    return entries;
  }

  private snapshot(): RegistrySnapshot {
    const entries = this.entries ?? this.collect();
    return { dir: this.dir, readable: true, entries, malformed: this.malformed.size, ...(this.overCap > 0 ? { overCap: this.overCap } : {}) };
  }
}
