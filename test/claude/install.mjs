// The real-agent tier's Claude Code: pinned versions fetched from the npm
// registry into a cache outside the repository (never a dependency of the
// project, never committed). The binary is in the platform package
// (`@anthropic-ai/claude-code-<platform>`, one file `package/claude`); the
// main package only points at it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The versions `npm run test:agents` runs: the newest (2.1.333: job state files,
 * parkedJobId, tmux and pidDomain) and 2.1.197 (none of the row's fields; its
 * parks are not linked to their tabs). `-- --version <v>` runs any other one.
 */
export const CLAUDE_VERSIONS = ['2.1.333', '2.1.197'];

/** Where the versions are kept: $TMUX_FLEET_CLAUDE_CACHE, else the user's cache directory. */
export function claudeCacheDir(env = process.env) {
  if (env.TMUX_FLEET_CLAUDE_CACHE) return env.TMUX_FLEET_CLAUDE_CACHE;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'tmux-fleet-test', 'claude-code');
}

export function claudeBinary(cacheDir, version) {
  return join(cacheDir, version, 'claude');
}

/** The npm package holding the binary for this machine, or null where Claude Code ships none. */
export function platformPackage() {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!arch) return null;
  if (process.platform === 'darwin') return `@anthropic-ai/claude-code-darwin-${arch}`;
  if (process.platform !== 'linux') return null;
  const musl = existsSync(`/lib/ld-musl-${arch === 'x64' ? 'x86_64' : 'aarch64'}.so.1`);
  return `@anthropic-ai/claude-code-linux-${arch}${musl ? '-musl' : ''}`;
}

async function versionOf(binary) {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 60_000 });
    return stdout.trim().split(/\s+/)[0] ?? '';
  } catch {
    return '';
  }
}

/**
 * The binary of `version`, fetched when the cache lacks it (`npm pack` of the
 * platform package, then its one file unpacked). Throws when it cannot be had.
 */
export async function installClaude(version, cacheDir = claudeCacheDir()) {
  const binary = claudeBinary(cacheDir, version);
  if (existsSync(binary) && (await versionOf(binary)) === version) return binary;
  const pkg = platformPackage();
  if (!pkg) throw new Error(`no Claude Code package for ${process.platform}-${process.arch}`);
  await mkdir(cacheDir, { recursive: true });
  const work = await mkdtemp(join(cacheDir, `.fetch-${version}-`));
  try {
    // cwd: the work directory, so no project .npmrc or package.json is involved.
    const { stdout } = await run('npm', ['pack', `${pkg}@${version}`, '--pack-destination', work, '--silent'], {
      cwd: work,
      timeout: 600_000,
      maxBuffer: 16 << 20,
    });
    const tarball = stdout.trim().split('\n').pop();
    if (!tarball) throw new Error(`npm pack ${pkg}@${version} named no file`);
    await run('tar', ['-xzf', join(work, tarball), '-C', work, 'package/claude'], { timeout: 300_000 });
    await mkdir(join(cacheDir, version), { recursive: true });
    await rename(join(work, 'package', 'claude'), binary);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const got = await versionOf(binary);
  if (got !== version) throw new Error(`${binary} reports version "${got}", not ${version}`);
  return binary;
}
