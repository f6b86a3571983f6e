// Bundles the helper into one file, dist/tmux-fleet.cjs (docs/budgets.md#owner-start-up).
//
// Why it is shaped this way (measured, bench/results.md):
// - CommonJS, not ESM: Node's ESM loader alone costs about 0.1x `node -e 0`
//   on every call, before a line of ours runs.
// - Command modules are reached through dynamic import(); in one bundle
//   esbuild turns each into a lazily initialized module, so `owner` runs the
//   top-level code of what it uses and nothing else.
// - V8 still has to read and pre-parse everything that is code in the file,
//   and execa and yargs alone are two thirds of it. They are bundled
//   separately (tree-shaken to the names we import) and embedded as
//   brotli-compressed base64 strings, which V8 only scans; src/deferred.ts
//   unpacks and compiles one the first time a command imports it. `owner` on
//   a decided task never pays for them.
// - A Node built-in that only some paths need (node:net) is imported
//   dynamically, and that import() is compiled to require().
// - The helper's code is one string inside a small launcher (src/launcher.ts)
//   that compiles it with a V8 code cache kept in ~/.cache/tmux-fleet:
//   about 0.08x `node -e 0` less on every call than parsing it afresh.
// - The file is ASCII (esbuild's default; base64 is): Node reads a one-byte
//   string much faster.
// - Identifiers are not minified in the parsed part: V8 pre-parses the
//   result slower than the readable names (measured, about 1.3x).
//
// The file is written to a temporary name and renamed into place, so a hook
// that starts during a rebuild runs the old helper or the new one, never half.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outdir = join(root, 'dist');
const outfile = join(outdir, 'tmux-fleet.cjs');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
};

// The dependencies compiled only when first imported: the names src imports from each.
const DEFERRED = {
  execa: ['execa'],
  yargs: ['default'],
};

// Brotli, then base64: a quarter of the bytes for Node to read and V8 to scan, ASCII by construction.
const packed = (source) =>
  brotliCompressSync(Buffer.from(source, 'utf8'), { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).toString('base64');

async function bundleDeferred(name, names) {
  const r = await build({
    ...common,
    minify: true, // never parsed unless used: the fewer bytes to scan, the better
    stdin: { contents: `export { ${names.join(', ')} } from '${name}';`, resolveDir: root, loader: 'js' },
    // ESM-only packages ask for import.meta.url (yargs, for its locale files).
    define: { 'import.meta.url': '__fleet_import_meta_url' },
    banner: { js: "var __fleet_import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
  });
  return r.outputFiles[0].text;
}

const sources = Object.fromEntries(
  await Promise.all(Object.entries(DEFERRED).map(async ([name, names]) => [name, await bundleDeferred(name, names)])),
);

const deferredPlugin = {
  name: 'deferred',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(DEFERRED).join('|')})$`);
    b.onResolve({ filter }, (a) => ({ path: a.path, namespace: 'deferred' }));
    b.onLoad({ filter: /.*/, namespace: 'deferred' }, (a) => {
      const exports = DEFERRED[a.path]
        .map((n) => (n === 'default' ? 'export default m.default;' : `export const ${n} = m.${n};`))
        .join('\n');
      return {
        contents: `import { loadDeferred } from './src/deferred.ts';\nconst m = loadDeferred(${JSON.stringify(packed(sources[a.path]))}, ${JSON.stringify(a.path)});\n${exports}\n`,
        resolveDir: root,
        loader: 'js',
      };
    });
  },
};

const result = await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli', 'bin.ts')],
  outfile,
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [deferredPlugin],
  // import() of a Node built-in (node:net, loaded only when needed) becomes a
  // require(): kept as import(), it would start Node's ESM loader, about 3 ms.
  supported: { 'dynamic-import': false },
  define: { __FLEET_VERSION__: JSON.stringify(pkg.version) },
});

// The helper as one function of CommonJS's five arguments, handed as a string
// to src/launcher.ts, which compiles it with a V8 code cache.
const main = `(function (exports, require, module, __filename, __dirname) {${result.outputFiles[0].text}\n})`;
const launcher = await build({
  ...common,
  entryPoints: [join(root, 'src', 'launcher.ts')],
  outfile,
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: '#!/usr/bin/env node' },
  define: {
    __FLEET_MAIN__: JSON.stringify(main),
    __FLEET_BUILD_ID__: JSON.stringify(createHash('sha256').update(main).digest('hex').slice(0, 16)),
  },
});

mkdirSync(outdir, { recursive: true });
const tmp = `${outfile}.${process.pid}.tmp`;
writeFileSync(tmp, launcher.outputFiles[0].contents, { mode: 0o755 });
chmodSync(tmp, 0o755);
renameSync(tmp, outfile);

// The layout of earlier builds (an ESM entry and chunks): removed once old
// enough that no helper started before this build can still be loading them.
for (const old of [join(outdir, 'tmux-fleet.mjs'), join(outdir, 'chunks')]) {
  if (existsSync(old) && Date.now() - statSync(old).mtimeMs > 10 * 60_000) rmSync(old, { recursive: true, force: true });
}
