// Reads the voyageai client's errors for the retry policy (retry.ts): its timeout, a request
// that got no answer, or the HTTP status with Voyage's `detail` and the response headers.
import { VoyageAIError, VoyageAITimeoutError } from 'voyageai';
import type { TryFailure } from '../lib/retry.js';

export function voyageFailure(err: unknown): TryFailure | undefined {
  if (err instanceof VoyageAITimeoutError) return { transport: 'timeout' };
  if (!(err instanceof VoyageAIError)) return undefined;
  if (err.statusCode === undefined) return { transport: 'network', detail: err.message };
  const detail = (err.body as { detail?: unknown } | undefined)?.detail;
  const headers = err.rawResponse?.headers;
  return {
    status: err.statusCode,
    ...(typeof detail === 'string' ? { detail } : {}),
    ...(headers ? { header: (name: string) => headers.get(name) } : {}),
  };
}
