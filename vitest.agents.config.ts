// The agent suite (`npm run test:agents`, run by .ci/run after the crash suite): Claude Code,
// Codex and Gemini CLI, installed at pinned versions into a cache outside node_modules, run
// headless with `doco hooks install`'s hooks against a fake model on loopback. Not part of
// `npm test`. `npm run test:agents` runs vitest inside a network namespace that has only
// loopback (test/agents/run.ts); run any other way the agent tests skip, saying why.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // One agent at a time: each runs a Doco server, its Postgres and a CLI on two cores.
    fileParallelism: false,
    // The JSON report lets .ci/run add the suite's counts to its "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.agents-results.json' },
  },
});
