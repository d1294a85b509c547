// Reads a form post (application/x-www-form-urlencoded, what a plain HTML form sends) with the
// same limits as a JSON body; repeated fields (checkboxes) become arrays.
import type { Context } from 'hono';
import { AppError } from '../../errors.js';
import { LIMITS } from '../../graph/limits.js';

export type FormFields = Record<string, string | string[]>;

export async function readForm(c: Context): Promise<FormFields> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new AppError(
      'unsupported_media_type',
      `send the form as application/x-www-form-urlencoded (got ${type ? JSON.stringify(type) : 'no content type'})`,
    );
  }
  if (Number(c.req.header('content-length') ?? '0') > LIMITS.requestBytes)
    throw new AppError('payload_too_large', `the form is larger than ${LIMITS.requestBytes} bytes`);
  const text = await c.req.text();
  if (Buffer.byteLength(text) > LIMITS.requestBytes)
    throw new AppError('payload_too_large', `the form is larger than ${LIMITS.requestBytes} bytes`);
  const fields: FormFields = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = fields[key];
    fields[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

/** A field that may repeat, as a list (absent: empty). */
export const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
