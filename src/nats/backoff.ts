// Exponential backoff between NATS connection attempts: min, 2·min, 4·min … up to max, each
// stretched by up to 20% at random so many workers do not reconnect in step.
//
// The nats client asks its reconnectDelayHandler for "the wait" on every pass of its dial loop,
// not once per attempt, and dials when that wait has passed since its last dial. So the
// schedule keeps its own count: the call made once the current wait has passed is the one the
// client dials on, and later calls get the next, doubled wait. reset() starts over once a
// connection is made.

export interface BackoffSchedule {
  /** The wait the nats client's reconnectDelayHandler returns. */
  delay(): number;
  /** The wait after the k-th failed attempt (k from 0), jitter included: for our own loops. */
  afterFailure(k: number): number;
  reset(): void;
}

export interface BackoffOptions {
  minMs: number;
  maxMs: number;
}

export function backoffSchedule(opts: BackoffOptions, clock: () => number = Date.now, random: () => number = Math.random): BackoffSchedule {
  const afterFailure = (k: number) => Math.round(Math.min(opts.maxMs, opts.minMs * 2 ** Math.min(k, 30)) * (1 + 0.2 * random()));
  let dials = 0;
  let lastDial = Number.NEGATIVE_INFINITY;
  let wait = 0;
  return {
    afterFailure,
    delay() {
      const now = clock();
      const due = wait;
      if (now - lastDial >= due) {
        // The client dials on this call; should it fail, the next attempt waits longer.
        lastDial = now;
        wait = afterFailure(dials);
        dials++;
      }
      return due;
    },
    reset() {
      dials = 0;
      lastDial = Number.NEGATIVE_INFINITY;
      wait = 0;
    },
  };
}
