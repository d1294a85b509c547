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
  // Counted before it is parsed: a console form holds a few dozen fields (the review page's
  // checkboxes a page of records), and a 40 KB post of 20,000 `x&` was 20,000 fields to read.
  let pairs = 1;
  for (let at = text.indexOf('&'); at >= 0 && pairs <= MAX_FORM_FIELDS; at = text.indexOf('&', at + 1)) pairs++;
  if (pairs > MAX_FORM_FIELDS) throw new AppError('validation_failed', `the form has more than ${MAX_FORM_FIELDS} fields`);
  const fields: FormFields = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = fields[key];
    if (seen === undefined) fields[key] = value;
    // Pushed in place: a copy a repeat made reading the form quadratic (20,000 repeats held the server 15 s).
    else if (Array.isArray(seen)) seen.push(value);
    else fields[key] = [seen, value];
  }
  return fields;
}

/** Fields a console form may hold: the most a page sends is the review queue's page of checkboxes (25) and a few more. */
export const MAX_FORM_FIELDS = 1000;

/** A field that may repeat, as a list (absent: empty). */
export const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
