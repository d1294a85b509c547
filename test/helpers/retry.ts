// Sleeps to inject into the retry policy (src/lib/retry.ts), so tests see the waits it
// asks for without waiting them: one that returns at once and records, one that never returns.
import type { RetryOptions } from '../../src/lib/retry.js';

/** Records each wait asked for and returns at once. */
export function instantSleep(): { waits: number[]; sleep: NonNullable<RetryOptions['sleep']> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

/** Never returns: `waiting` resolves with the first wait asked for, so a test can abort mid-wait. */
export function stalledSleep(): { waiting: Promise<number>; sleep: NonNullable<RetryOptions['sleep']> } {
  let started!: (ms: number) => void;
  const waiting = new Promise<number>((resolve) => (started = resolve));
  return {
    waiting,
    sleep: (ms) => {
      started(ms);
      return new Promise<void>(() => {});
    },
  };
}

/** Retry options that never wait, for tests about something else. */
export const noWait: RetryOptions = { sleep: async () => {} };
