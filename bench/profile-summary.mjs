#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most
// self time, and the most inclusive time, by function and file:line. For the
// supervisor under bench load: BENCH_SUPERVISOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR".
//   node bench/profile-summary.mjs DIR/CPU.*.cpuprofile [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg) || 25;
const prof = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Sample time per node: each sample lasts until the next one.
const self = new Map();
const deltas = prof.timeDeltas ?? [];
for (let i = 0; i < prof.samples.length; i++) {
  const dt = deltas[i + 1] ?? 0;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
}
const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}` : '';
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
