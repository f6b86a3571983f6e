// Compiles a dependency embedded in the bundle as source text, the first time
// a command imports it (scripts/build.mjs says why). Same realm, same
// require: the module behaves exactly as if it had been bundled as code.
import { compileFunction } from 'node:vm';

declare const __filename: string;
declare const __dirname: string;

export function loadDeferred(source: string, name: string): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const fn = compileFunction(source, ['module', 'exports', 'require', '__filename', '__dirname'], {
    filename: `${__filename}#${name}`,
  });
  fn(module, module.exports, require, __filename, __dirname);
  return module.exports;
}
