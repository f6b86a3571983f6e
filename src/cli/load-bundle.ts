// How the entry (src/cli/bin.ts) loads a bundle: require() in general, and the
// fast bundle through the V8 code cache the build wrote beside it, when the
// cache can be trusted (docs/budgets.md#the-code-cache).
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { privateDirProblem } from '../context';
import { readRegularFileBytes } from '../fs-safe';

export interface Bundle {
  main(argv: string[]): Promise<number>;
}

/** The cache the build writes for a bundle: beside it, named after it (the bundle's name carries a hash of its text). */
export const codeCacheFile = (bundle: string) => `${bundle}.cache`;

/** A code cache is far smaller than this; a bigger file is not one of ours. */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * The code cache of a bundle, when it and its directory are the user's alone
 * (owned by the user, writable by nobody else), else undefined. V8 checks
 * little more than a cache's source length, so a cache someone else could
 * write is code someone else could run.
 */
export function trustedCodeCache(bundle: string, uid: number | undefined = process.getuid?.()): Buffer | undefined {
  if (uid === undefined) return undefined;
  const dir = dirname(bundle);
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st || privateDirProblem(dir, { uid: st.uid, mode: st.mode, isDirectory: st.isDirectory() }, uid)) return undefined;
  try {
    return readRegularFileBytes(codeCacheFile(bundle), MAX_CACHE_BYTES, { ownedBy: uid });
  } catch {
    // Missing, or not the user's alone: the bundle is compiled without it.
    return undefined;
  }
}

/** What the entry needs of Node's Module class. */
interface NodeModuleClass {
  wrap(code: string): string;
}

type ModuleWrapper = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string) => void;

/**
 * Compiles and runs a CommonJS bundle as require() would (Node's own wrapper
 * around its text), with a code cache when one is given. Returns the script
 * too: the build makes the cache from it after a run (scripts/build.mjs).
 * The bundles live beside the entry, so the entry's own require() resolves what
 * a bundle requires (node: built-ins, ./deps/*.cjs, ./cli.cjs) as the bundle's
 * own would, without a createRequire() (about 0.3 ms).
 */
export function compileBundle(file: string, cachedData?: Buffer): { exports: Bundle; script: Script } {
  // Node's Module class, reached through the running module: importing node:module
  // would load its public wrapper first, about 1.5 ms of every call.
  const NodeModule = module.constructor as unknown as NodeModuleClass;
  // latin1: the bundles are ASCII (esbuild escapes the rest; test/cli/bundle.test.ts checks it), and V8 takes a one-byte string without decoding it.
  const script = new Script(NodeModule.wrap(readFileSync(file, 'latin1')), { filename: file, cachedData });
  const loaded = { exports: {} };
  (script.runInThisContext() as ModuleWrapper)(loaded.exports, require, loaded, file, dirname(file));
  return { exports: loaded.exports as Bundle, script };
}

export function loadBundle(file: string, options: { codeCache: boolean }): Bundle {
  const cache = options.codeCache ? trustedCodeCache(file) : undefined;
  if (!cache) return require(file) as Bundle;
  return compileBundle(file, cache).exports;
}
