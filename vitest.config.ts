import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // As a serving process starts (server/cli/serving-flags.ts): the idle collector's full collection.
    poolOptions: { forks: { execArgv: ['--expose-gc'] } },
    reporters: ['default'],
  },
});
