// The real-agent tier's Codex CLI and Gemini CLI: pinned versions installed
// from the npm registry into a cache outside the repository (never a
// dependency of the project, never committed), one npm prefix per version:
//   ${XDG_CACHE_HOME:-~/.cache}/tmux-fleet-test/<agent>/<version>/node_modules/.bin/<bin>
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, mkdtemp, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The pinned versions (the ones whose behaviour docs/ownership.md records). */
export const OTHER_AGENTS = [
  { agent: 'codex', pkg: '@openai/codex', version: '0.171.0', bin: 'codex', name: 'Codex CLI' },
  { agent: 'gemini', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini', name: 'Gemini CLI' },
];

/** Where they are kept: $TMUX_FLEET_AGENTS_CACHE, else the user's cache directory. */
export function agentsCacheDir(env = process.env) {
  if (env.TMUX_FLEET_AGENTS_CACHE) return env.TMUX_FLEET_AGENTS_CACHE;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'tmux-fleet-test');
}

export function agentBinary(cacheDir, a) {
  return join(cacheDir, a.agent, a.version, 'node_modules', '.bin', a.bin);
}

async function versionOf(binary) {
  try {
    // HOME elsewhere: --version must not write into the user's agent directories.
    const home = await mkdtemp(join(process.env.TMPDIR || '/tmp', 'fleet-version-'));
    try {
      const { stdout } = await run(binary, ['--version'], { timeout: 120_000, env: { PATH: process.env.PATH, HOME: home } });
      return (stdout.trim().match(/\d+\.\d+\.\d+/) ?? [''])[0];
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  } catch {
    return '';
  }
}

/** The binary of the pinned version, installed when the cache lacks it. Throws when it cannot be had. */
export async function installAgent(a, cacheDir = agentsCacheDir()) {
  const binary = agentBinary(cacheDir, a);
  if (existsSync(binary) && (await versionOf(binary)) === a.version) return binary;
  const dir = join(cacheDir, a.agent);
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(dir, `.install-${a.version}-`));
  try {
    // Its own prefix: no project .npmrc or package.json is involved.
    await writeFile(join(work, 'package.json'), '{"private":true}\n');
    await run('npm', ['install', '--prefix', work, '--no-audit', '--no-fund', '--save-exact', `${a.pkg}@${a.version}`], {
      cwd: work,
      timeout: 900_000,
      maxBuffer: 16 << 20,
    });
    await rm(join(dir, a.version), { recursive: true, force: true });
    await rename(work, join(dir, a.version));
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    throw err;
  }
  const got = await versionOf(binary);
  if (got !== a.version) throw new Error(`${binary} reports version "${got}", not ${a.version}`);
  return binary;
}
