// The integration suite (`npm run test:integration`, run by .ci/run after installing what it
// needs): tests against real third-party servers on loopback, such as Debian's nats-server.
// Not part of `npm test`, which must pass on a machine with nothing but Node. One file at a
// time: each starts its own servers beside the shared embedded Postgres.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/integration/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // The JSON report lets .ci/run add the suite's counts to its "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.integration-results.json' },
  },
});
