// Watches a directory for changes: fs.watch where it works, and a poll as the
// fallback (fs.watch misses events on some file systems, and cannot watch a
// directory that does not exist yet). The poll compares a cheap stat
// signature (the directory and its entries: names, sizes, mtimes) and starts
// no process. Changes are debounced into one call.
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from '../fs-async';
import { join } from 'node:path';

export interface WatchOptions {
  /** Poll every this many milliseconds (default 2000). 0 disables polling. */
  intervalMs?: number;
  /** Wait this long after the last event before calling back (default 50). */
  debounceMs?: number;
  /** Only these entry names count (the registry passes ROW_FILE_RE: the *.key files are not its business). */
  filter?: (name: string) => boolean;
  /** Watch subdirectories too (fs.watch recursive; the poll signature always covers one level of entries). */
  recursive?: boolean;
}

export interface DirWatcher {
  /** Calls back now (debounced), as if a change had been seen: the supervisor's nudge. */
  poke(): void;
  close(): void;
}

/**
 * The stat signature of a directory: its own mtime and, for each entry the
 * filter keeps, its name, size and mtime (an entry that is a directory
 * changes mtime when a file inside it is renamed over, which covers
 * tasks/<slug>/task.json). '' when the directory cannot be read.
 */
export async function dirSignature(dir: string, filter?: (name: string) => boolean): Promise<string> {
  try {
    const st = await lstat(dir);
    const names = (await readdir(dir)).filter((n) => !filter || filter(n)).sort();
    const parts = await Promise.all(
      names.map(async (n) => {
        try {
          const s = await lstat(join(dir, n));
          return `${n}:${s.size}:${s.mtimeMs}:${s.ino}`;
        } catch {
          return `${n}:-`;
        }
      }),
    );
    return `${st.mtimeMs}|${parts.join('|')}`;
  } catch {
    return '';
  }
}

/** Watches `dir` and calls `onChange` (debounced) after each change. Never throws; close() stops everything. */
export function watchDir(dir: string, onChange: () => void, opts: WatchOptions = {}): DirWatcher {
  const intervalMs = opts.intervalMs ?? 2000;
  const debounceMs = opts.debounceMs ?? 50;
  let closed = false;
  let watcher: FSWatcher | null = null;
  let debounce: NodeJS.Timeout | null = null;
  let poller: NodeJS.Timeout | null = null;
  let signature: string | null = null;
  let polling = false;

  const fire = () => {
    if (closed) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      if (closed) return;
      // Remember what was seen, so the next poll does not report it again.
      void dirSignature(dir, opts.filter).then((s) => {
        signature = s;
      });
      try {
        onChange();
      } catch {
        /* the caller's business */
      }
    }, debounceMs);
  };

  const startWatch = () => {
    if (watcher || closed) return;
    try {
      watcher = watch(dir, { persistent: true, recursive: Boolean(opts.recursive) }, (_event, name) => {
        if (opts.filter && typeof name === 'string' && name !== '' && !opts.recursive && !opts.filter(name)) return;
        fire();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null;
    }
  };

  startWatch();
  void dirSignature(dir, opts.filter).then((s) => {
    if (signature === null) signature = s;
  });
  if (intervalMs > 0) {
    poller = setInterval(() => {
      if (polling || closed) return;
      polling = true;
      void dirSignature(dir, opts.filter)
        .then((s) => {
          if (!watcher && s !== '') startWatch();
          if (signature !== null && s !== signature) {
            signature = s;
            fire();
          } else if (signature === null) signature = s;
        })
        .finally(() => {
          polling = false;
        });
    }, intervalMs);
  }

  return {
    poke: fire,
    close() {
      closed = true;
      if (debounce) clearTimeout(debounce);
      if (poller) clearInterval(poller);
      watcher?.close();
      watcher = null;
    },
  };
}
