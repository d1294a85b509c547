// The scale suite (`npm run test:scale`, run by .ci/run after the integration suite): the
// production layout on loopback — a Postgres primary and a streaming standby (Debian's
// postgresql), two `doco serve --no-worker`, two `doco worker`, the Qdrant fake — under
// concurrent clients, with an API process, a worker and the primary taken down part-way
// (docs/production.md). Not part of `npm test`: it needs Debian's postgresql and takes minutes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/scale/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 180_000,
    // One file at a time, and nothing else beside it: the suite measures the two cores it has.
    fileParallelism: false,
    // The JSON report lets .ci/run add the suite's counts to its "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.scale-results.json' },
  },
});
