// setupFiles: every test file starts with none of the caller's fleet variables
// (test/helpers/hermetic.ts), so child processes and tmux servers it starts
// inherit none either. Tests that need one set it explicitly. Nor does any
// process it starts read the caller's extra CA bundle (COSTLY_ENV_VARS).
// And a test file fails when a supervisor's check mode (docs/status.md#check-mode)
// wrote a difference down meanwhile.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { CHECK_RENDER_ENV } from '../../src/status/render-check';
import { UNSET_IN_TESTS } from './hermetic';

for (const name of UNSET_IN_TESTS) delete process.env[name];

afterAll(() => {
  const file = process.env[CHECK_RENDER_ENV];
  if (!file) return;
  let found = '';
  try {
    found = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  if (found.trim() === '') return;
  // Told once, by the first file to find it (files run side by side: it may be another file's supervisor).
  writeFileSync(file, '');
  const lines = found.trimEnd().split('\n');
  throw new Error(`render check: an incremental wake differed from a full render (${lines.length} lines):\n${lines.slice(0, 60).join('\n')}`);
});
