// Reads a form post (application/x-www-form-urlencoded, what a plain HTML form sends) with the
// same limit as a JSON body, held while it streams (../body.ts); repeated fields (checkboxes)
// become arrays.
import type { Context } from 'hono';
import { AppError } from '../../errors.js';
import { LIMITS } from '../../graph/limits.js';
import { readBoundedText, type BodyBudget } from '../body.js';

export type FormFields = Record<string, string | string[]>;

export async function readForm(c: Context, opts: { maxBytes?: number; budget?: BodyBudget } = {}): Promise<FormFields> {
  const maxBytes = opts.maxBytes ?? LIMITS.requestBytes;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new AppError(
      'unsupported_media_type',
      `send the form as application/x-www-form-urlencoded (got ${type ? JSON.stringify(type) : 'no content type'})`,
    );
  }
  const text = await readBoundedText(c, maxBytes, 'the form', opts.budget);
  const fields: FormFields = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = fields[key];
    fields[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

/** A field that may repeat, as a list (absent: empty). */
export const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
