#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most
// self time, and the most inclusive time, by function and file:line. For the
// supervisor under bench load: BENCH_SUPERVISOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR".
//   node bench/profile-summary.mjs DIR/CPU.*.cpuprofile [top=25] [skip-seconds=0] [until-seconds]
// skip-seconds leaves out the start (the first wake), so that what is left is the steady work;
// until-seconds ends the window (part g's first churn window of the large fleet: 20 to 34).
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

const [file, topArg, skipArg, untilArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.mjs <file.cpuprofile> [top] [skip-seconds] [until-seconds]');
  process.exit(2);
}
const top = Number(topArg) || 25;
const skipUs = (Number(skipArg) || 0) * 1e6;
const untilUs = untilArg ? Number(untilArg) * 1e6 : Infinity;
const prof = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Sample time per node: each sample lasts until the next one.
const self = new Map();
const deltas = prof.timeDeltas ?? [];
let at = 0;
for (let i = 0; i < prof.samples.length; i++) {
  at += deltas[i] ?? 0;
  if (at < skipUs || at > untilUs) continue;
  const dt = deltas[i + 1] ?? 0;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
}
// The bundle's lines are long (whitespace minified): a frame in dist/ is named by its source (src/<file>.ts:<line>) through the linked map.
const maps = new Map();
function sourceMapOf(url) {
  if (!maps.has(url)) {
    let map = null;
    try {
      const path = url.startsWith('file:') ? fileURLToPath(url) : url;
      if (/\/dist\/.*\.cjs$/.test(path) && existsSync(`${path}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}
const label = (n) => {
  const f = n.callFrame;
  const entry = f.url ? sourceMapOf(f.url)?.findEntry(f.lineNumber, f.columnNumber) : undefined;
  const where = entry?.originalSource
    ? `${entry.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/')}:${entry.originalLine + 1}`
    : f.url
      ? `${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`
      : '';
  return `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
};
const total = [...self.values()].reduce((a, b) => a + b, 0);
const bySelf = new Map();
const byIncl = new Map();
for (const [id, t] of self) {
  const n = nodes.get(id);
  bySelf.set(label(n), (bySelf.get(label(n)) ?? 0) + t);
  // Inclusive: each distinct function on the stack once.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(nodes.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    byIncl.set(l, (byIncl.get(l) ?? 0) + t);
  }
}
const idle = [...bySelf].filter(([l]) => /^\((idle|program|garbage collector)\)/.test(l));
const show = (title, m) => {
  console.log(`\n${title}`);
  for (const [l, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((t / total) * 100).toFixed(1).padStart(6)} %  ${(t / 1000).toFixed(0).padStart(7)} ms  ${l}`);
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled; ${idle.map(([l, t]) => `${l} ${((t / total) * 100).toFixed(1)} %`).join(', ')}`);
show('self time', bySelf);
show('inclusive time', byIncl);
