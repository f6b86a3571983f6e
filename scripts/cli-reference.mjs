#!/usr/bin/env node
// The reference part of docs/cli.md (global flags and commands), made from the
// command table, src/cli/spec.ts, so that the two cannot drift. `npm run docs`
// writes it between the markers; with --check it writes nothing and exits 1
// when the file differs (test/docs.test.ts runs that).
//
//   node scripts/cli-reference.mjs [--check] [<file>, default docs/cli.md]
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BEGIN = '<!-- reference: made from src/cli/spec.ts by `npm run docs`; edit it there -->';
const END = '<!-- end of reference -->';

/** The table, compiled from src/cli/spec.ts (it imports types only). */
async function loadSpec() {
  const out = await build({ entryPoints: [join(root, 'src', 'cli', 'spec.ts')], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning' });
  return import(`data:text/javascript,${encodeURIComponent(out.outputFiles[0].text)}`);
}

/** Text for a Markdown table cell: `<` would open an HTML tag, `|` end the cell. */
const cell = (text) => text.replace(/[\\<|]/g, (c) => `\\${c}`);
/** Code in a table cell: only `|` is escaped there (GitHub splits the row before it reads code). */
const code = (text) => `\`${text.replaceAll('|', '\\|')}\``;
/** `<slug>`, `[sid]`, `install|uninstall|status`: a positional as the usage line names it. */
const positional = (p) => (p.choices ? p.choices.join('|') : `${p.required ? '<' : '['}${p.name}${p.variadic ? '…' : ''}${p.required ? '>' : ']'}`);
const flag = (name, opt) => code(`--${name}${opt.type === 'boolean' ? '' : ` <${opt.choices ? opt.choices.join('|') : 'value'}>`}`);
const sentence = (text) => `${text[0].toUpperCase()}${text.slice(1)}.`;

function reference({ COMMANDS, GLOBAL_OPTIONS }) {
  const lines = ['## Global flags', '', '| flag | meaning |', '|---|---|'];
  for (const [name, opt] of Object.entries(GLOBAL_OPTIONS)) lines.push(`| ${flag(name, opt)} | ${cell(opt.describe)} |`);
  lines.push(`| ${code('--help')}, ${code('--version')} | help for the tool or a command; the version |`, '', '## Commands');
  for (const spec of COMMANDS) {
    const usage = ['tmux-fleet', spec.name, ...spec.positionals.map(positional)];
    if (Object.keys(spec.options).length > 0) usage.push('[options]');
    lines.push('', `### ${spec.name}`, '', `\`${usage.join(' ')}\``, '', `${cell(sentence(spec.describe))}${spec.docs ? ` More: [${spec.docs.split('#')[0]}](${spec.docs}).` : ''}`);
    const rows = [
      ...spec.positionals.map((p) => [code(positional(p)), p.describe]),
      ...Object.entries(spec.options).map(([name, opt]) => [flag(name, opt), opt.describe]),
    ];
    if (rows.length > 0) lines.push('', '| argument | meaning |', '|---|---|', ...rows.map(([a, m]) => `| ${a} | ${cell(m)} |`));
  }
  return lines.join('\n');
}

/** The document with its reference made anew; throws when the markers are missing. */
function withReference(doc, spec) {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`the markers ${BEGIN} and ${END} are missing`);
  return `${doc.slice(0, begin + BEGIN.length)}\n\n${reference(spec)}\n\n${doc.slice(end)}`;
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const name = args.find((a) => a !== '--check') ?? 'docs/cli.md';
const file = args.some((a) => a !== '--check') ? name : join(root, name);
try {
  const doc = readFileSync(file, 'utf8');
  const made = withReference(doc, await loadSpec());
  if (made === doc) {
    if (!check) console.log(`${name}: the reference is up to date`);
  } else if (check) {
    const at = made.split('\n').findIndex((line, i) => line !== doc.split('\n')[i]);
    console.error(`${name}: the reference differs from src/cli/spec.ts from line ${at + 1} (run npm run docs)`);
    process.exitCode = 1;
  } else {
    writeFileSync(file, made);
    console.log(`${name}: the reference written`);
  }
} catch (err) {
  console.error(`${name}: ${err.message}`);
  process.exitCode = 1;
}
