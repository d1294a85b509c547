// Reads a JSON request body: refuses a wrong content type, an oversize body (while it streams:
// body.ts), invalid JSON and JSON that is not an object with the error shape, before anything
// reaches validation or SQL.
import type { Context } from 'hono';
import { AppError } from '../errors.js';
import { LIMITS } from '../graph/limits.js';
import { readBoundedText } from './body.js';

export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError(
      'unsupported_media_type',
      `send the body as application/json (got ${type ? JSON.stringify(type) : 'no content type'})`,
    );
  }
  const text = await readBoundedText(c, LIMITS.requestBytes, 'the body');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new AppError('validation_failed', `the body is not valid JSON: ${(err as Error).message}`);
  }
  // Every route's body is an object: said once here, not as a schema's "field 0 is not known".
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('validation_failed', `the body must be a JSON object, not ${kindOf(body)}`);
  }
  return body as Record<string, unknown>;
}

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);
