// Time as the code that waits reads it: the monotonic now and a timer that does not keep the
// process alive. Passed in, so a test drives time by hand instead of sleeping through it.
export interface Clock {
  /** Milliseconds on a monotonic scale (performance.now() in production). */
  now(): number;
  /** Runs `fn` after `ms`; cancel() drops it. */
  after(ms: number, fn: () => void): { cancel(): void };
}

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms).unref();
    return { cancel: () => clearTimeout(timer) };
  },
};
