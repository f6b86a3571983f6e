// Bundles the helper into one file. Command modules are reached through
// dynamic import(), which esbuild (without splitting) turns into lazily
// initialised wrappers: a command's dependencies are evaluated only when it runs.
import { build } from 'esbuild';
import { readFileSync, chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outfile = join(root, 'dist', 'tmux-fleet.mjs');

await build({
  entryPoints: [join(root, 'src', 'cli', 'bin.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: {
    js: "#!/usr/bin/env node\nimport{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
  },
  define: { __FLEET_VERSION__: JSON.stringify(pkg.version) },
});
chmodSync(outfile, 0o755);
