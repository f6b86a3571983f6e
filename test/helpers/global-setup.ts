// Builds the helper bundle once, so integration tests always run the code under test;
// and bundles the test fixtures that child processes run (test/.build/, ignored by git).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { TEST_CACHE_HOME } from '../../vitest.config';
import { CHECK_RENDER_ENV } from '../../src/status/render-check';

export default async function setup(): Promise<() => void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  await build({
    entryPoints: [fileURLToPath(new URL('../fixtures/store-worker.ts', import.meta.url))],
    outfile: fileURLToPath(new URL('../.build/store-worker.mjs', import.meta.url)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
  // Check mode for every supervisor the run starts (docs/status.md#check-mode): each writes here what its
  // incremental render got wrong, and the test file that finds it fails (test/helpers/setup.ts). One file per run:
  // runs side by side do not mix. Set before the workers start: they, their tmux servers and the plugin inherit it.
  const checkDir = mkdtempSync(join(tmpdir(), 'tmux-fleet-render-check-'));
  const checkFile = join(checkDir, 'differences.log');
  process.env[CHECK_RENDER_ENV] = checkFile;
  return () => {
    rmSync(TEST_CACHE_HOME, { recursive: true, force: true });
    rmSync(checkDir, { recursive: true, force: true });
  };
}
