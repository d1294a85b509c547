// A webhook's raw request bytes, read whole (signatures are over the bytes, never a re-parse),
// refused past `maxBytes` by its Content-Length before reading and by its size after; and its
// JSON object, parsed only once the signature has been checked.
import type { Context } from 'hono';
import { AppError } from '../errors.js';

export async function readRawBody(c: Context, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new AppError('payload_too_large', `a webhook body is at most ${maxBytes} bytes`);
  if (Number(c.req.header('content-length') ?? '0') > maxBytes) throw tooLarge();
  const raw = new Uint8Array(await c.req.arrayBuffer());
  if (raw.byteLength > maxBytes) throw tooLarge();
  return raw;
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
