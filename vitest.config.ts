import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** XDG_CACHE_HOME of everything the tests start (agents, tools): never the user's ~/.cache. Removed by global-setup's teardown. */
export const TEST_CACHE_HOME = join(tmpdir(), `tmux-fleet-test-cache-${process.getuid?.() ?? 0}`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-agent tier has its own config (vitest.agents.config.ts, `npm run test:agents`).
    exclude: ['**/node_modules/**', '**/.git/**', 'test/claude/**', 'test/agents-real/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // The caller's TMUX, TMUX_FLEET_* and CLAUDE_* variables are cleared in every worker.
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real tmux servers; two cores on CI. Most of them also wait on
    // tmux and the processes they start, so a third worker keeps both cores busy (npm test on
    // two cores, measured in pairs: 112 s vs 123 s, 134 s vs 140 s with two workers).
    maxWorkers: 3,
    fileParallelism: true,
    // Test files share a worker's module cache: src/ is imported once per worker, not once per
    // file (about 40 % less CPU on the unit files). Nothing mocks modules; each file's state is its own.
    isolate: false,
    reporters: ['default'],
    // Every helper a test starts, directly or from a tmux pane or hook, inherits it.
    env: { XDG_CACHE_HOME: TEST_CACHE_HOME },
  },
});
