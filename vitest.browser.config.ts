// The browser suite (`npm run test:browser`, run by .ci/run after `npm test`): the console driven
// in Debian's Chromium (/usr/bin/chromium, or DOCO_CHROMIUM) through playwright-core, which
// downloads no browser. Not part of `npm test`: it needs the chromium package.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // The JSON report lets .ci/run add the suite's counts to its "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.browser-results.json' },
  },
});
