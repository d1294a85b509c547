// Long synchronous loops in a process that also answers HTTP (the drain's embedding and indexing
// in `doco serve`) hand the event loop back every few milliseconds, so a brief or a hook that
// arrives meanwhile waits for a slice, not for the whole batch.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a loop runs before it yields: a brief's own work is ~10 ms, so a wait of this is small beside it. */
export const SLICE_MS = 8;

/**
 * fn for each item in order, yielding to the event loop whenever SLICE_MS have passed since the
 * last turn. Resolves to fn's results.
 */
export async function mapYielding<T, R>(items: readonly T[], fn: (item: T, index: number) => R, sliceMs = SLICE_MS): Promise<R[]> {
  const out: R[] = [];
  let since = performance.now();
  for (let i = 0; i < items.length; i++) {
    out.push(fn(items[i]!, i));
    if (performance.now() - since >= sliceMs && i + 1 < items.length) {
      await nextTurn();
      since = performance.now();
    }
  }
  return out;
}

/**
 * Work written as a generator that yields where it may pause (between chunks of a long loop).
 * `runSteps` runs it through at once; `runStepsYielding` hands the event loop back whenever
 * SLICE_MS have passed at one of those pauses. One body of code for both: a snapshot's restore at
 * start-up may hold the thread, a compaction in a serving process may not.
 */
export function runSteps<R>(steps: Generator<void, R, void>): R {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export async function runStepsYielding<R>(steps: Generator<void, R, void>, sliceMs = SLICE_MS): Promise<R> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await nextTurn();
      since = performance.now();
    }
  }
}
