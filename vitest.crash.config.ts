// The crash suite (`npm run test:crash`, run by .ci/run after `npm test`): real `doco serve` and
// `doco ingest-docs` processes on their own DOCO_HOME, killed with SIGKILL, restarted, checked.
// Not part of `npm test`. One file at a time: each starts its own servers and Postgres clusters.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/crash/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // The JSON report lets .ci/run add the suite's counts to its "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.crash-results.json' },
  },
});
