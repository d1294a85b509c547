import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The crash suite kills real processes and takes minutes: `npm run test:crash` (vitest.crash.config.ts).
    // The integration suite needs third-party servers (nats-server): `npm run test:integration`.
    // The agent suite drives real agent CLIs in a network namespace: `npm run test:agents` (vitest.agents.config.ts).
    // The scale suite needs Debian's postgresql and minutes: `npm run test:scale` (vitest.scale.config.ts).
    // The browser suite needs Debian's Chromium: `npm run test:browser` (vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'test/crash/**', 'test/integration/**', 'test/scale/**', 'test/agents/**', 'test/browser/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more forks than that only adds contention on the one Postgres.
    maxWorkers: 2,
    // Test files share their fork's module registry instead of importing the source tree anew
    // each (import time across the suite fell from ~104 s to ~12 s, the wall time from 233 s to
    // 141 s). Safe because no test mocks modules or changes process.env, and the few
    // module-level caches are pure (their values never depend on which test filled them):
    // ARCHITECTURE.md, "Layers".
    isolate: false,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results.json' },
  },
});
