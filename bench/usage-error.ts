// A mistake in how a benchmark was called: `npm run bench` prints its message alone, in one line,
// where any other failure prints its stack.
export class BenchUsageError extends Error {}
