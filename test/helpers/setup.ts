// setupFiles: every test file starts with none of the caller's fleet variables
// (test/helpers/hermetic.ts), so child processes and tmux servers it starts
// inherit none either. Tests that need one set it explicitly. Nor does any
// process it starts read the caller's extra CA bundle (COSTLY_ENV_VARS).
import { UNSET_IN_TESTS } from './hermetic';

for (const name of UNSET_IN_TESTS) delete process.env[name];
