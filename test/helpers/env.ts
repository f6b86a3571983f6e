// Temp homes and registries (tmp-promise), and running the built helper.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { dir as tmpDir } from 'tmp-promise';
import { cleanEnv } from './hermetic';
import { FLEET_BIN } from './paths';

export interface FleetEnv {
  root: string;
  home: string;
  registry: string;
  claudeDir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A temp directory (tmp-promise) whose cleanup survives a process of the test
 * still finishing a write in it (a lock, a temp file): rm retries ENOTEMPTY/EBUSY.
 */
export interface TempDir {
  path: string;
  cleanup(): Promise<void>;
}

export async function makeTempDir(prefix = 'fleet-test-'): Promise<TempDir> {
  const d = await tmpDir({ unsafeCleanup: true, prefix });
  return { path: d.path, cleanup: () => rm(d.path, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}

/** A temp fleet home, Claude config dir and registry; env aims the helper at them (and at no tmux server yet). */
export async function makeFleetEnv(socketName?: string): Promise<FleetEnv> {
  const d = await makeTempDir();
  const home = join(d.path, 'home');
  const claudeDir = join(d.path, 'claude');
  const registry = join(claudeDir, 'sessions');
  await mkdir(registry, { recursive: true });
  const env: Record<string, string> = {
    TMUX_FLEET_HOME: home,
    TMUX_FLEET_REGISTRY: registry,
    CLAUDE_CONFIG_DIR: claudeDir,
    TMUX_FLEET_BIN: FLEET_BIN,
    // The other agents' homes, never the user's (not made: `hooks` then leaves them out).
    CODEX_HOME: join(d.path, 'codex'),
    GEMINI_CLI_HOME: join(d.path, 'gemini-home'),
  };
  if (socketName) env.TMUX_FLEET_SOCKET = socketName;
  return { root: d.path, home, registry, claudeDir, env, cleanup: d.cleanup };
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the built tmux-fleet with a clean environment: no TMUX, TMUX_FLEET_* or CLAUDE_* variable unless given. */
export async function runFleet(
  args: string[],
  /** bin: another build's entry (a copy of dist/ to plant files in); default dist/tmux-fleet.cjs. */
  opts: { env?: Record<string, string | undefined>; input?: string; cwd?: string; timeoutMs?: number; bin?: string } = {},
): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...cleanEnv(), ...opts.env };
  const r = await execa(process.execPath, [opts.bin ?? FLEET_BIN, ...args], {
    env,
    extendEnv: false,
    reject: false,
    input: opts.input ?? '',
    cwd: opts.cwd,
    timeout: opts.timeoutMs ?? 30_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value or the time runs out (then throws with the last value). */
export async function waitFor<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await sleep(everyMs);
  }
}
