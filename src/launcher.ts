// The first lines of dist/tmux-fleet.cjs (scripts/build.mjs puts the helper
// after them, as one string). It compiles the helper with a V8 code cache, so
// that hooks and scripts calling `owner` or `stamp` many times a minute do not
// parse 180 KB of code on every call: measured 0.07-0.1x `node -e 0` less per
// call (SPEC section 10, bench/results.md). Node 22 does this itself
// (module.enableCompileCache); Node 20 does not.
//
// The cache lives in $XDG_CACHE_HOME/tmux-fleet (default ~/.cache/tmux-fleet),
// one file per build, Node version and architecture. V8 checks the rest (the
// source, its flags) and rejects a cache that does not fit; then the helper is
// compiled as usual and a fresh cache is written at exit. Nothing here may
// fail a command: a cache that cannot be read or written is skipped.
// TMUX_FLEET_CODE_CACHE=0 turns it off.
import { mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';

declare const __FLEET_MAIN__: string;
declare const __FLEET_BUILD_ID__: string;

const PREFIX = 'code-';

function cacheDir(env: NodeJS.ProcessEnv): string | null {
  if (env.TMUX_FLEET_CODE_CACHE === '0') return null;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'tmux-fleet');
  return env.HOME ? join(env.HOME, '.cache', 'tmux-fleet') : null;
}

function readCache(file: string | null): Buffer | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache (temporary name, then rename) and removes the caches of
 * other builds. Those of other Node versions of this build stay: a hook run by
 * one Node and a shell by another would otherwise remove each other's.
 */
function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
    const thisBuild = `${PREFIX}${__FLEET_BUILD_ID__}-`;
    for (const other of readdirSync(dir)) {
      if (other.startsWith(PREFIX) && !other.startsWith(thisBuild) && !other.endsWith('.tmp')) unlinkSync(join(dir, other));
    }
  } catch {
    // A cache is a saving, never a reason to fail.
  }
}

const dir = cacheDir(process.env);
const file = dir && join(dir, `${PREFIX}${__FLEET_BUILD_ID__}-${process.version}-${process.arch}.bin`);
const cachedData = readCache(file);
const script = new Script(__FLEET_MAIN__, { filename: __filename, cachedData });
if (dir && file && (!cachedData || script.cachedDataRejected)) {
  // At exit the cache also holds the functions this run compiled, not only the top level.
  process.once('exit', () => writeCache(dir, file, script.createCachedData()));
}
(script.runInThisContext() as (...args: unknown[]) => void)(exports, require, module, __filename, __dirname);
