import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more forks than that only adds contention on the one Postgres.
    maxWorkers: 2,
  },
});
