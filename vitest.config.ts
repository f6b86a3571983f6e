import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real tmux servers; two cores on CI.
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ['default'],
  },
});
