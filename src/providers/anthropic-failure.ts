// Reads @anthropic-ai/sdk's errors for the retry policy (retry.ts): a timeout, a connection
// that failed, or the HTTP status with Anthropic's error message and the response headers.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { TryFailure } from '../lib/retry.js';

export function anthropicFailure(err: unknown): TryFailure | undefined {
  // An abort is the caller's decision, not a failure: the policy reports it from the signal.
  if (err instanceof APIUserAbortError) return undefined;
  if (err instanceof APIConnectionTimeoutError) return { transport: 'timeout' };
  if (err instanceof APIConnectionError)
    return { transport: 'network', detail: err.cause instanceof Error ? err.cause.message : err.message };
  if (!(err instanceof APIError) || err.status === undefined) return undefined;
  const headers = err.headers;
  return {
    status: err.status,
    ...(err.apiMessage ? { detail: err.apiMessage } : {}),
    ...(headers ? { header: (name: string) => headers.get(name) } : {}),
  };
}
