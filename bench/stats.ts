// Small statistics helpers for the benchmarks: percentiles over measured samples.
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function timeIt<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

/**
 * 1 when this process (and a server it starts, which inherits its environment) runs with glibc's
 * allocator tuned as the Docker image runs it: MALLOC_ARENA_MAX=1 and MALLOC_MMAP_THRESHOLD_ set
 * (docs/production.md, "Memory").
 */
export const allocatorTuned = () => (process.env.MALLOC_ARENA_MAX === '1' && process.env.MALLOC_MMAP_THRESHOLD_ ? 1 : 0);
