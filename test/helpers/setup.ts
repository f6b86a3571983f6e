// setupFiles: every test file starts with none of the caller's fleet variables
// (test/helpers/hermetic.ts), so child processes and tmux servers it starts
// inherit none either. Tests that need one set it explicitly.
import { CALLER_ENV_VARS } from './hermetic';

for (const name of CALLER_ENV_VARS) delete process.env[name];
