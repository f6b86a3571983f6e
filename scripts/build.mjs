// Bundles the helper: dist/tmux-fleet.mjs, the entry, plus its lazily loaded
// chunks in dist/chunks/. Command modules are reached through dynamic import();
// with splitting, a command loads only the chunks it uses. One file that held
// everything made `owner` pay to compile all of zod, execa and yargs on every
// call (about 2x `node -e 0`; SPEC section 10, bench/results.md).
import { build } from 'esbuild';
import { readFileSync, chmodSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outdir = join(root, 'dist');
const outfile = join(outdir, 'tmux-fleet.mjs');

const result = await build({
  entryPoints: { 'tmux-fleet': join(root, 'src', 'cli', 'bin.ts') },
  outdir,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  // Bundled CommonJS dependencies (execa's, yargs') call require(); give them
  // one, made on first use so that chunks that never call it pay nothing.
  banner: {
    js: "#!/usr/bin/env node\nimport{createRequire as __cr}from'node:module';let __rq;const require=(id)=>(__rq??=__cr(import.meta.url))(id);",
  },
  define: { __FLEET_VERSION__: JSON.stringify(pkg.version) },
});
chmodSync(outfile, 0o755);

// Chunks of earlier builds: removed once they are old enough that no helper
// started before this build can still be about to load one.
const current = new Set(Object.keys(result.metafile.outputs).map((p) => resolve(p)));
const chunks = join(outdir, 'chunks');
for (const name of readdirSync(chunks)) {
  const file = join(chunks, name);
  if (!current.has(file) && Date.now() - statSync(file).mtimeMs > 10 * 60_000) {
    try {
      unlinkSync(file);
    } catch {
      // another build removed it
    }
  }
}
