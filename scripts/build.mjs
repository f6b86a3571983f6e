// Bundles the helper into plain CommonJS files under dist/: the entry
// (tmux-fleet.cjs, the package's bin), the fast bundle (fast.cjs: owner, stamp,
// sid-of-pane), the full CLI (cli.cjs) and each dependency in a file of its own
// (deps/), with a source map beside each. Start-up is a feature, and this layout
// is what the measurements chose: docs/development.md#the-bundle says what each
// file holds and why.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join, relative } from 'node:path';

const started = performance.now();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// What this build is made from (docs/status.md#updates): the version and a checksum
// of the inputs, computed by the shell function the plugin compares it with on load.
// Written to dist/built-from last, and into the bundles (doctor and the supervisor
// say which build they are).
const inputs = spawnSync('bash', ['-c', '. "$1" && fleet_build_inputs', 'bash', join(root, 'scripts', 'helpers.sh')], { encoding: 'utf8' });
const builtFrom = inputs.status === 0 && inputs.stdout.trim() !== '' ? inputs.stdout.trim() : `${pkg.version} unknown`;
if (inputs.status !== 0) console.warn(`build: cannot tell what the build is made from (${(inputs.stderr || inputs.error?.message || '').trim()}); a load will build again`);
const outdir = join(root, 'dist');
const outfile = join(outdir, 'tmux-fleet.cjs');
const depsDir = join(outdir, 'deps');

// Whitespace and syntax minified, identifiers kept (for V8's pre-parse and stack traces).
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  minifyWhitespace: true,
  minifySyntax: true,
  // A map only has to turn a stack frame into file:line; the sources are in the repository.
  sourcemap: 'linked',
  sourcesContent: false,
  write: false,
};

// The dependencies kept out of the helper's file: which import specifiers of
// src go to each file, the module bundled, and the names src uses from it
// ('*': all, for a namespace import).
const DEPS = {
  execa: { specifiers: /^execa$/, from: 'execa', names: ['execa'] },
  yargs: { specifiers: /^yargs$/, from: 'yargs', names: ['default'] },
  // Its ESM build: the default entry is UMD, whose require() calls esbuild cannot follow.
  'jsonc-parser': { specifiers: /^jsonc-parser(\/.*)?$/, from: 'jsonc-parser/lib/esm/main.js', names: '*' },
  'smol-toml': { specifiers: /^smol-toml$/, from: 'smol-toml', names: ['parse'] },
  // src/zod.ts (zod/mini with English messages), imported as '../zod': it names the values it holds.
  zod: { specifiers: /^\.\.\/zod$/, from: './src/zod.ts', names: '*' },
};
const reexport = (names, from) => (names === '*' ? `export * from '${from}';` : `export { ${names.join(', ')} } from '${from}';`);

async function bundleDep(name, { from, names }) {
  const r = await build({
    ...common,
    stdin: { contents: reexport(names, from), resolveDir: root, sourcefile: `deps/${name}.js`, loader: 'js' },
    outfile: join(depsDir, `${name}.cjs`),
    // ESM-only packages ask for import.meta.url (yargs, for its locale files).
    define: { 'import.meta.url': '__fleet_import_meta_url' },
    banner: { js: "var __fleet_import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
  });
  return r.outputFiles;
}

// `import ... from 'execa'` in src becomes require('./deps/execa.cjs') in the
// module that imports it, so only a command that uses a dependency reads it. The
// stand-in module re-exports by name: src/ is ESM in Node's mode (package type
// module), where a default import would take the whole CommonJS exports object.
const depsPlugin = {
  name: 'deps',
  setup(b) {
    for (const [name, { specifiers }] of Object.entries(DEPS)) {
      b.onResolve({ filter: specifiers }, () => ({ path: name, namespace: 'deps' }));
    }
    b.onResolve({ filter: /^\.\/deps\//, namespace: 'deps' }, (a) => ({ path: a.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'deps' }, (a) => ({ contents: reexport(DEPS[a.path].names, `./deps/${a.path}.cjs`), loader: 'js' }));
  },
};

const isMap = (f) => f.path.endsWith('.map');
const code = (fs) => fs.filter((f) => !isMap(f));
const depOutputs = (await Promise.all(Object.entries(DEPS).map(([name, dep]) => bundleDep(name, dep)))).flat();

// The two bundles of src/: the fast commands, and everything (both reach the
// dependencies through depsPlugin); then the entry, which loads the fast one.
// import() becomes require(): kept, it would start Node's ESM loader.
const bundle = (entry, name, plugins = []) =>
  build({
    ...common,
    entryPoints: [join(root, 'src', 'cli', entry)],
    outfile: join(outdir, `${name}.cjs`),
    plugins: [depsPlugin, ...plugins],
    supported: { 'dynamic-import': false },
    define: { __FLEET_VERSION__: JSON.stringify(pkg.version), __FLEET_BUILT_FROM__: JSON.stringify(builtFrom) },
  });
// The fast bundle checks task.json with the plain validator built from the same
// field table as zod's (src/tasks/check-plain.ts): `owner` builds no zod
// schema (docs/tasks.md#validation).
const plainTaskCheck = {
  name: 'plain-task-check',
  setup(b) {
    const tasks = join(root, 'src', 'tasks');
    b.onResolve({ filter: /^\.\/check$/ }, (a) => (a.resolveDir === tasks ? { path: join(tasks, 'check-plain.ts') } : undefined));
  },
};
const [cliBundle, fastBundle, entry] = await Promise.all([
  bundle('main.ts', 'cli'),
  bundle('fast.ts', 'fast', [plainTaskCheck]),
  build({ ...common, entryPoints: [join(root, 'src', 'cli', 'bin.ts')], outfile, banner: { js: '#!/usr/bin/env node' } }),
]);

/** Writes a file under a temporary name, then renames it into place. */
function writeAtomic(file, contents, mode) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, contents, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}

// Each file renamed into place, maps before the code that names them, the
// dependencies first and the entry last: a helper started during a build never
// reads half of a file, and one that loads a new file loads only new ones after it.
const outputs = [depOutputs, cliBundle.outputFiles, fastBundle.outputFiles, entry.outputFiles];
for (const f of outputs.flatMap((fs) => [...fs.filter(isMap), ...code(fs)])) {
  writeAtomic(f.path, f.contents, f.path === outfile ? 0o755 : 0o644);
}

// Last, once the whole build is in place: what it is made from.
writeAtomic(join(outdir, 'built-from'), `${builtFrom}\n`, 0o644);

// dist/ holds what this build wrote and nothing else.
const written = new Set([...outputs.flat().map((f) => relative(outdir, f.path)), 'built-from']);
for (const f of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const path = join(f.parentPath, f.name);
  if (f.isFile() && !written.has(relative(outdir, path)) && !f.name.endsWith('.tmp')) rmSync(path, { force: true });
}

const kb = (f) => `${Math.round(f.contents.length / 1024)} KB`;
const sizes = outputs.flat().filter((f) => !isMap(f)).reverse();
console.log(`built ${sizes.map((f) => `${relative(outdir, f.path)} (${kb(f)})`).join(', ')} in ${Math.round(performance.now() - started)} ms`);
