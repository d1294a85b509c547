// A webhook's raw request bytes, read whole (signatures are over the bytes, never a re-parse),
// refused past `maxBytes` while they stream (body.ts), before any signature work; and its JSON
// object, parsed only once the signature has been checked.
import type { Context } from 'hono';
import { AppError } from '../errors.js';
import { readBoundedBody, type BodyBudget } from './body.js';

export function readRawBody(c: Context, maxBytes: number, budget?: BodyBudget): Promise<Uint8Array> {
  return readBoundedBody(c, maxBytes, 'a webhook body', budget);
}

/** `text` as a JSON object, or validation_failed saying what it should have been. */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new AppError('validation_failed', `${what} is not a JSON object`);
}
