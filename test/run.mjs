#!/usr/bin/env node
// `npm test`: the typecheck, vitest and the bats tests of the shell side, at once.
// bats spends more than half of its time waiting on tmux and tsc is one process,
// so beside vitest's two workers they cost little wall time on two cores
// (run one alone with `npm run typecheck`, `npm run test:unit`, `npm run test:bats`).
// vitest's output streams as it comes; the typecheck's and bats' print in full once
// vitest is done, each under its own header, then one line of times.
// Exit status: 0 when all three pass, else the first failing runner's.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();
const children = new Set();

/** Runs one runner (argv[0] relative to the root); `show: 'live'` streams its output, else it is kept for later. */
function run(name, [command, ...args], show) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command === 'node' ? process.execPath : join(root, command), args, {
      cwd: root,
      stdio: show === 'live' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    const chunks = [];
    child.stdout?.on('data', (c) => chunks.push(c));
    child.stderr?.on('data', (c) => chunks.push(c));
    const done = (code) => {
      children.delete(child);
      resolve({ name, code, output: Buffer.concat(chunks).toString(), seconds: (performance.now() - t0) / 1000 });
    };
    child.on('error', (err) => {
      chunks.push(Buffer.from(`${name}: ${err.message}\n`));
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

// Ctrl-C reaches the children from the terminal; any other end takes them along.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    for (const c of children) c.kill(sig);
    process.exitCode = 130;
  });
}

const typecheck = run('typecheck', ['node', 'node_modules/typescript/bin/tsc', '--noEmit'], 'later');
const bats = run('bats', ['node_modules/bats/bin/bats', 'test/bats'], 'later');
const vitest = await run('vitest', ['node', 'node_modules/vitest/vitest.mjs', 'run'], 'live');
const results = [await typecheck, vitest, await bats];

for (const r of [results[0], results[2]]) {
  process.stdout.write(`\n--- ${r.name} (${r.code === 0 ? 'passed' : `failed, exit ${r.code}`}) ---\n${r.output}`);
}
const line = results.map((r) => `${r.name} ${r.code === 0 ? 'passed' : 'FAILED'} (${r.seconds.toFixed(1)} s)`).join(', ');
process.stdout.write(`\nnpm test: ${line}; ${((performance.now() - started) / 1000).toFixed(1)} s in all\n`);
const failed = results.find((r) => r.code !== 0);
if (failed) process.exitCode = failed.code;
