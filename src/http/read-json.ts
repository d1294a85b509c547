// Reads a JSON request body: refuses a wrong content type, an oversize body (while it streams:
// body.ts) and invalid JSON with the error shape, before anything reaches validation or SQL.
import type { Context } from 'hono';
import { AppError } from '../errors.js';
import { LIMITS } from '../graph/limits.js';
import { readBoundedText } from './body.js';

export async function readJson(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError(
      'unsupported_media_type',
      `send the body as application/json (got ${type ? JSON.stringify(type) : 'no content type'})`,
    );
  }
  const text = await readBoundedText(c, LIMITS.requestBytes, 'the body');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('validation_failed', `the body is not valid JSON: ${(err as Error).message}`);
  }
}
