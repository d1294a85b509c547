// One retry policy for every hosted API client (Voyage, Anthropic, the connectors): exponential
// backoff with full jitter, the server's Retry-After honoured up to a cap, waits cut short by an
// AbortSignal, and one error type naming the provider, the last HTTP status and the tries.
// Retried: no answer at all (network error, timeout), 408, 429 and 5xx. Any other status is the
// request's own fault and is never retried.
import { AppError } from '../errors.js';

export interface RetryOptions {
  /** Tries in all, the first included. */
  maxAttempts?: number;
  /** The ceiling of the first wait; each later ceiling doubles, up to maxDelayMs. */
  baseDelayMs?: number;
  /** No wait is longer than this, a server's Retry-After included. */
  maxDelayMs?: number;
  /** Waits `ms`. Injected by tests; whatever it does, an abort ends the wait at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** In [0, 1): the jitter. */
  random?: () => number;
  /** Epoch milliseconds, for a Retry-After given as an HTTP date. */
  now?: () => number;
}

/** What one failed try says, read from the client library's error by its adapter. */
export interface TryFailure {
  /** The HTTP status, when the server answered. */
  status?: number;
  /** Set when no answer came: the connection failed, or the request timed out. */
  transport?: 'network' | 'timeout';
  /** The server's or the transport's own words, for the message (never the request). */
  detail?: string;
  /** A response header, for Retry-After. */
  header?: (name: string) => string | null | undefined;
}

/** Reads a client library's error; undefined for an error that is not a failed request (a bug): it is rethrown as is. */
export type FailureReader = (err: unknown) => TryFailure | undefined;

/**
 * A hosted API call that failed, after its retries. An AppError('unavailable'), so an edge that
 * meets it answers 503; `upstreamStatus` is what the provider answered (undefined when nothing
 * answered), `attempts` how many tries were made.
 */
export class ProviderError extends AppError {
  readonly provider: string;
  readonly upstreamStatus: number | undefined;
  readonly attempts: number;

  constructor(init: { provider: string; message: string; upstreamStatus?: number; attempts: number; cause?: unknown }) {
    super('unavailable', init.message, { provider: init.provider, status: init.upstreamStatus, attempts: init.attempts });
    this.name = 'ProviderError';
    this.provider = init.provider;
    this.upstreamStatus = init.upstreamStatus;
    this.attempts = init.attempts;
    if (init.cause !== undefined) this.cause = init.cause;
  }
}

export const isRetryable = (f: TryFailure): boolean =>
  f.status === undefined ? f.transport !== undefined : f.status === 408 || f.status === 429 || (f.status >= 500 && f.status <= 599);

/** The wait before try `attempt + 1`: "full jitter", uniform in [0, min(max, base·2^(attempt−1))). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  return random() * Math.min(maxMs, baseMs * 2 ** (attempt - 1));
}

const DELAY_SECONDS = /^\d+$/;
const HTTP_DATE = /^[A-Z][a-z]{2}[a-z]*,? /; // IMF-fixdate and the two obsolete forms all start with a day name

/**
 * The wait a response asks for, in ms: `retry-after-ms` (Anthropic's, OpenAI's) or `Retry-After`
 * as delay-seconds or an HTTP date (RFC 9110 §10.2.3). A date in the past is 0; a value that is
 * neither is ignored (undefined).
 */
export function retryAfterMs(header: TryFailure['header'], now: number): number | undefined {
  const ms = header?.('retry-after-ms')?.trim();
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = header?.('retry-after')?.trim();
  if (!value) return undefined;
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  // asctime, the one form without a zone, is GMT too; Date.parse would read it as local time.
  const at = Date.parse(/GMT$/.test(value) ? value : `${value} GMT`);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

const abortError = (what: string) => new DOMException(`${what} aborted`, 'AbortError');

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    // On abort the timer goes too (the caller has already rejected), so nothing keeps the process up.
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** `sleep`, rejected with an AbortError the moment `signal` fires, whether or not sleep itself listens. */
function waitUnlessAborted(
  sleep: NonNullable<RetryOptions['sleep']>,
  ms: number,
  signal: AbortSignal | undefined,
  what: string,
): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.reject(abortError(what));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(what));
    signal.addEventListener('abort', onAbort, { once: true });
    sleep(ms, signal).then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function describeFailure(f: TryFailure): string {
  const detail = f.detail ? ` (${f.detail.split('\n')[0]!.slice(0, 200)})` : '';
  if (f.status !== undefined) return `HTTP ${f.status}${detail}`;
  return f.transport === 'timeout' ? `timed out${detail}` : `network error${detail}`;
}

export interface RetryPolicy {
  readonly provider: string;
  /**
   * Runs `request` until it succeeds, fails for good, or `signal` fires (an AbortError, never
   * retried). `operation` names the call in messages: "voyage rerank failed: HTTP 503 … after 3 attempts".
   */
  run<T>(operation: string, request: () => Promise<T>, readFailure: FailureReader, signal?: AbortSignal): Promise<T>;
}

/** A client's policy: its provider name and defaults, overridden by what its caller passed. */
export function retryPolicy(provider: string, defaults: RetryOptions, overrides: RetryOptions = {}): RetryPolicy {
  // `??`, not spread: an option passed as undefined keeps the default.
  const maxAttempts = overrides.maxAttempts ?? defaults.maxAttempts ?? 3;
  const baseDelayMs = overrides.baseDelayMs ?? defaults.baseDelayMs ?? 500;
  const maxDelayMs = overrides.maxDelayMs ?? defaults.maxDelayMs ?? 10_000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  if (!(baseDelayMs >= 0) || !(maxDelayMs >= 0)) throw new RangeError('baseDelayMs and maxDelayMs must be ≥ 0');
  const sleep = overrides.sleep ?? defaults.sleep ?? defaultSleep;
  const random = overrides.random ?? defaults.random ?? Math.random;
  const now = overrides.now ?? defaults.now ?? Date.now;

  return {
    provider,
    async run(operation, request, readFailure, signal) {
      const what = `${provider} ${operation}`;
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw abortError(what);
        try {
          return await request();
        } catch (err) {
          // Clients report an abort in their own ways; the signal says what really happened.
          if (signal?.aborted) throw abortError(what);
          const failure = readFailure(err);
          if (!failure) throw err;
          if (!isRetryable(failure) || attempt >= maxAttempts) {
            throw new ProviderError({
              provider,
              message: `${what} failed: ${describeFailure(failure)}${attempt > 1 ? ` after ${attempt} attempts` : ''}`,
              ...(failure.status === undefined ? {} : { upstreamStatus: failure.status }),
              attempts: attempt,
              cause: err,
            });
          }
          const asked = retryAfterMs(failure.header, now());
          const delay = Math.min(maxDelayMs, Math.max(backoffDelay(attempt, baseDelayMs, maxDelayMs, random), asked ?? 0));
          await waitUnlessAborted(sleep, delay, signal, what);
        }
      }
    },
  };
}
