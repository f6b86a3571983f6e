// Bundles the helper into plain files under dist/:
//
//   dist/tmux-fleet.cjs        the helper (src/), the `bin` of package.json
//   dist/deps/execa.cjs        execa, required the first time a command imports it
//   dist/deps/yargs.cjs        yargs, likewise
//   dist/deps/jsonc-parser.cjs jsonc-parser (hooks install/uninstall), likewise
//   dist/deps/smol-toml.cjs    smol-toml (Codex's config.toml: hooks, doctor), likewise
//   *.map                      a source map beside each, for stack traces under TMUX_FLEET_DEBUG=1
//
// Why it is shaped this way (measured, bench/results.md):
// - CommonJS, not ESM: Node's ESM loader alone costs about 0.1x `node -e 0`
//   on every call, before a line of ours runs.
// - Command modules are reached through dynamic import(); in one bundle
//   esbuild turns each into a lazily initialized module, so `owner` runs the
//   top-level code of what it uses and nothing else.
// - V8 still reads and pre-parses every function in the file it loads, and
//   the dependencies below are more than half of the code. Each is bundled
//   into its own file (tree-shaken to the names src imports), and src's
//   imports of them become require('./deps/<name>.cjs') calls inside the
//   modules that import them, so only a command that uses one reads it.
//   `owner` on a decided task reads none. (zod stays in the helper's file:
//   every command reads a task file.)
// - import() is compiled to require() (a Node built-in needed on one path
//   only, node:net, is imported that way): kept as import(), it would start
//   Node's ESM loader, about 3 ms.
// - Whitespace and syntax are minified, identifiers are not: V8 pre-parses
//   readable names faster (measured), and stack traces keep them.
//
// Each file is written to a temporary name and renamed into place, the
// dependencies first and the helper last: a hook that starts during a rebuild
// runs the old helper or the new one, never half of one.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join, relative } from 'node:path';

const started = performance.now();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outdir = join(root, 'dist');
const outfile = join(outdir, 'tmux-fleet.cjs');
const depsDir = join(outdir, 'deps');

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
};
const reexport = (names, from) => (names === '*' ? `export * from '${from}';` : `export { ${names.join(', ')} } from '${from}';`);

// string-width (yargs, and cliui and wrap-ansi under it) builds its emoji and
// Unicode-property regexes when it is loaded: about 60 ms, more than all the rest
// of yargs, and only help layout measures a string. Each import of it becomes a
// stand-in that requires the real module at the first call; a module required in
// a bundle is initialized then, not at load. Nothing changes but when it runs.
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, async (a) => {
      if (a.pluginData?.real) return undefined;
      const real = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, pluginData: { real: true } });
      return real.errors.length > 0 ? { errors: real.errors } : { path: real.path, namespace: 'lazy-string-width' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (a) => ({
      contents: `let real;\nexport default function stringWidth(text, options) {\n  real ??= require(${JSON.stringify(a.path)}).default;\n  return real(text, options);\n}\n`,
      resolveDir: dirname(a.path),
      loader: 'js',
    }));
  },
};

async function bundleDep(name, { from, names }) {
  const r = await build({
    ...common,
    plugins: [lazyStringWidth],
    stdin: { contents: reexport(names, from), resolveDir: root, sourcefile: `deps/${name}.js`, loader: 'js' },
    outfile: join(depsDir, `${name}.cjs`),
    // ESM-only packages ask for import.meta.url (yargs, for its locale files).
    define: { 'import.meta.url': '__fleet_import_meta_url' },
    banner: { js: "var __fleet_import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
  });
  return r.outputFiles;
}

// `import ... from 'execa'` in src becomes require('./deps/execa.cjs') in the
// module that imports it, resolved beside the helper at run time. The stand-in
// module re-exports by name: src/ is ESM in Node's mode (package type module),
// where a default import would take the whole CommonJS exports object.
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
// dependencies through depsPlugin). The fast bundle's name carries a hash of its
// text, and its code cache the same name: a cache only ever meets the code it was
// made from, even while a rebuild replaces files under a running helper.
const bundle = (entry, names) =>
  build({
    ...common,
    entryPoints: [join(root, 'src', 'cli', entry)],
    outdir,
    entryNames: names,
    outExtension: { '.js': '.cjs' },
    plugins: [depsPlugin],
    supported: { 'dynamic-import': false },
    define: { __FLEET_VERSION__: JSON.stringify(pkg.version) },
  });
const [cliBundle, fastBundle] = await Promise.all([bundle('main.ts', 'cli'), bundle('fast.ts', 'fast-[hash]')]);
const fastFile = code(fastBundle.outputFiles)[0].path;

// The entry, last: it names the fast bundle it belongs to.
const entry = await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli', 'bin.ts')],
  outfile,
  banner: { js: '#!/usr/bin/env node' },
  define: { __FLEET_FAST_BUNDLE__: JSON.stringify(basename(fastFile)) },
});

/** Writes a file under a temporary name, then renames it into place. */
function writeAtomic(file, contents, mode) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, contents, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}

// dist/ holds the code cache, which the entry uses only while it and its directory
// are writable by their owner alone (docs/budgets.md#the-code-cache): under a umask
// of 002 (a user's private group) mkdir would leave dist/ group-writable.
mkdirSync(outdir, { recursive: true });
chmodSync(outdir, 0o755);

// Maps before the code that names them; the dependencies before the bundles that require them.
for (const f of [depOutputs, cliBundle.outputFiles, fastBundle.outputFiles].flatMap((fs) => [...fs.filter(isMap), ...code(fs)])) {
  writeAtomic(f.path, f.contents, 0o644);
}

// The fast bundle's V8 code cache (docs/budgets.md#the-code-cache): made by running
// `owner` on a decided task once, through the new entry, so that it holds the
// functions that run and not only the top level. A failure costs only the cache.
const entryFiles = entry.outputFiles;
for (const f of entryFiles.filter(isMap)) writeAtomic(f.path, f.contents, 0o644);
const entryTmp = join(outdir, `.${basename(outfile)}.${process.pid}.tmp`);
writeFileSync(entryTmp, code(entryFiles)[0].contents, { mode: 0o755 });
let cacheNote;
try {
  const cacheTmp = join(outdir, `.${basename(fastFile)}.cache.${process.pid}.tmp`);
  const env = { ...process.env };
  // The cache is checked against V8's flags: none may be added for the run that makes it.
  delete env.NODE_OPTIONS;
  const made = spawnSync(process.execPath, [join(root, 'scripts', 'code-cache.cjs'), entryTmp, fastFile, cacheTmp], { env, encoding: 'utf8' });
  if (made.status === 0) {
    chmodSync(cacheTmp, 0o644);
    renameSync(cacheTmp, `${fastFile}.cache`);
    cacheNote = `${basename(fastFile)}.cache (${Math.round(statSync(`${fastFile}.cache`).size / 1024)} KB)`;
  } else {
    rmSync(cacheTmp, { force: true });
    console.warn(`build: no code cache (the helper works without it, only slower to start): ${(made.stderr || made.error?.message || '').trim()}`);
  }
} finally {
  chmodSync(entryTmp, 0o755);
  renameSync(entryTmp, outfile);
}

// What earlier builds left: their fast bundles and caches, the layout before the
// split (chunks, an ESM entry). Removed once old enough that no helper started
// before this build can still be loading them.
const current = new Set([basename(fastFile), `${basename(fastFile)}.map`, `${basename(fastFile)}.cache`]);
const old = [
  ...readdirSync(outdir).filter((f) => /^fast-.*\.cjs(\.map|\.cache)?$/.test(f) && !current.has(f)).map((f) => join(outdir, f)),
  join(outdir, 'tmux-fleet.mjs'),
  join(outdir, 'chunks'),
];
for (const f of old) {
  if (existsSync(f) && Date.now() - statSync(f).mtimeMs > 10 * 60_000) rmSync(f, { recursive: true, force: true });
}

const kb = (f) => `${Math.round(f.contents.length / 1024)} KB`;
const sizes = [...entryFiles, ...cliBundle.outputFiles, ...fastBundle.outputFiles, ...depOutputs].filter((f) => !isMap(f));
console.log(
  `built ${sizes.map((f) => `${relative(outdir, f.path)} (${kb(f)})`).join(', ')}${cacheNote ? `, ${cacheNote}` : ''} in ${Math.round(performance.now() - started)} ms`,
);
