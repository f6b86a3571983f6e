// Builds the helper bundle once, so integration tests always run the code under test;
// and bundles the test fixtures that child processes run (test/.build/, ignored by git).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { TEST_CACHE_HOME } from '../../vitest.config';

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
  return () => rmSync(TEST_CACHE_HOME, { recursive: true, force: true });
}
