// The real-agent tier (`npm run test:agents`, run through test/agents-real/run.mjs,
// which fetches the pinned Claude Code, Codex CLI and Gemini CLI versions
// first): test/claude/ and test/agents-real/.
import { defineConfig } from 'vitest/config';
import { claudeCacheDir } from './test/claude/install.mjs';
import { agentsCacheDir } from './test/agents-real/install.mjs';
import { TEST_CACHE_HOME } from './vitest.config.ts';

export default defineConfig({
  test: {
    include: ['test/claude/**/*.test.ts', 'test/agents-real/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Real agents start in seconds and park in tens of seconds; one file at a time (two cores).
    testTimeout: 240_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default'],
    env: {
      XDG_CACHE_HOME: TEST_CACHE_HOME,
      // No check mode (docs/status.md#check-mode) here: the tier times what real agents see.
      TMUX_FLEET_CHECK_RENDER: '',
      // Resolved here, from the real environment: the tests' XDG_CACHE_HOME is the helper's test cache.
      TMUX_FLEET_CLAUDE_CACHE: claudeCacheDir(),
      TMUX_FLEET_AGENTS_CACHE: agentsCacheDir(),
    },
  },
});
