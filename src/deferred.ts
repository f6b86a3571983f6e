// Unpacks and compiles a dependency embedded in the bundle (brotli, base64),
// the first time a command imports it (scripts/build.mjs says why). Same
// realm, same require: the module behaves exactly as if bundled as code.
import { compileFunction } from 'node:vm';
import { brotliDecompressSync } from 'node:zlib';

declare const __filename: string;
declare const __dirname: string;

export function loadDeferred(packed: string, name: string): Record<string, unknown> {
  const source = brotliDecompressSync(Buffer.from(packed, 'base64')).toString('utf8');
  const module = { exports: {} as Record<string, unknown> };
  const fn = compileFunction(source, ['module', 'exports', 'require', '__filename', '__dirname'], {
    filename: `${__filename}#${name}`,
  });
  fn(module, module.exports, require, __filename, __dirname);
  return module.exports;
}
