#!/usr/bin/env node
// `npm run test:agents` (alias `test:claude`): the real-agent tier. Fetches the
// pinned Claude Code versions (test/claude/install.mjs) and the pinned Codex CLI
// and Gemini CLI (test/agents-real/install.mjs) into the cache, runs the tier's
// vitest config (vitest.agents.config.ts), prints a plain summary line
// (`agents tier: N passed, N failed`) and checks that no process of the tier's
// throw-away HOMEs is left. `npm run test:agents -- --version <v>` (repeatable)
// runs the Claude Code part on those versions instead: a new release is one
// command from being checked.
// Without the package: outside CI one line and exit 0; with CI=true, exit 1.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLAUDE_VERSIONS, claudeCacheDir, installClaude } from '../claude/install.mjs';
import { OTHER_AGENTS, agentsCacheDir, installAgent } from './install.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ci = process.env.CI === 'true';
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// --version <v> / --version=<v> name the versions; every other argument goes to vitest.
const asked = [];
const vitestArgs = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--version' && i + 1 < process.argv.length) asked.push(process.argv[++i]);
  else if (a.startsWith('--version=')) asked.push(a.slice('--version='.length));
  else vitestArgs.push(a);
}
for (const v of asked) {
  if (!/^\d+\.\d+\.\d+$/.test(v)) {
    console.log(`agents tier: --version wants a version such as 2.1.333, not ${JSON.stringify(v)}`);
    process.exit(2);
  }
}
const versions = asked.length > 0 ? asked : CLAUDE_VERSIONS;
// A version asked for is a Claude Code release to check: only its part of the tier runs.
if (asked.length > 0 && !vitestArgs.some((a) => !a.startsWith('-'))) vitestArgs.push('test/claude/');

const cacheDir = claudeCacheDir();
for (const version of versions) {
  const t0 = Date.now();
  try {
    const binary = await installClaude(version, cacheDir);
    console.log(`agents tier: Claude Code ${version} at ${binary} (${seconds(Date.now() - t0)})`);
  } catch (err) {
    const why = String(err instanceof Error ? err.message : err).split('\n')[0];
    if (ci) {
      console.log(`agents tier: cannot fetch Claude Code ${version} (${why}); failing under CI`);
      console.log('agents tier: 0 passed, 1 failed');
      process.exit(1);
    }
    console.log(`agents tier: skipped, Claude Code ${version} cannot be fetched from the npm registry (${why})`);
    process.exit(0);
  }
}

const agentsCache = agentsCacheDir();
for (const a of OTHER_AGENTS) {
  const t0 = Date.now();
  try {
    const binary = await installAgent(a, agentsCache);
    console.log(`agents tier: ${a.name} ${a.version} at ${binary} (${seconds(Date.now() - t0)})`);
  } catch (err) {
    const why = String(err instanceof Error ? err.message : err).split('\n')[0];
    if (ci) {
      console.log(`agents tier: cannot fetch ${a.name} ${a.version} (${why}); failing under CI`);
      console.log('agents tier: 0 passed, 1 failed');
      process.exit(1);
    }
    console.log(`agents tier: skipped, ${a.name} ${a.version} cannot be fetched from the npm registry (${why})`);
    process.exit(0);
  }
}

// Every throw-away HOME of the tier lives under this directory, so what is left can be found.
const homesRoot = await mkdtemp(join(tmpdir(), 'fleet-claude-'));
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', '--config', 'vitest.agents.config.ts', ...vitestArgs], {
  cwd: root,
  env: { ...process.env, TMUX_FLEET_CLAUDE_CACHE: cacheDir, TMUX_FLEET_AGENTS_CACHE: agentsCache, TMUX_FLEET_TIER_HOMES: homesRoot, TMUX_FLEET_CLAUDE_VERSIONS: versions.join(',') },
  stdio: ['inherit', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (b) => {
  output += b;
  process.stdout.write(b);
});
child.stderr.on('data', (b) => {
  output += b;
  process.stderr.write(b);
});
const code = await new Promise((resolve) => child.on('close', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
const testsLine = plain.split('\n').filter((l) => /^\s*Tests\s+\d/.test(l)).pop() ?? '';
const count = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(testsLine)?.[1] ?? 0);
let failed = count('failed');
const passed = count('passed');

const left = processesUnder(homesRoot);
if (left.length > 0) {
  console.log(`agents tier: ${left.length} process(es) of the tier's HOME left: ${left.map((p) => `${p.pid} ${p.comm}`).join(', ')}; killed`);
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  failed += 1;
}
if (process.env.TMUX_FLEET_CLAUDE_KEEP === '1') console.log(`agents tier: kept ${homesRoot}`);
else await rm(homesRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });

console.log(`agents tier: ${passed} passed, ${failed} failed (${seconds(Date.now() - started)}; Claude Code ${versions.join(', ')})`);
process.exit(code !== 0 || failed > 0 ? 1 : passed === 0 ? 1 : 0);

/** Running (not zombie) processes whose HOME is under dir. */
function processesUnder(dir) {
  const found = [];
  if (!existsSync('/proc')) return found;
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const home = readFileSync(`/proc/${name}/environ`, 'utf8')
        .split('\0')
        .find((e) => e.startsWith('HOME='));
      if (home?.slice(5).startsWith(`${dir}/`)) found.push({ pid: Number(name), comm: readFileSync(`/proc/${name}/comm`, 'utf8').trim() });
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return found;
}
