// CSRF tokens: an HMAC of the session (or, before sign-in, of a nonce cookie) under the console
// key, so a form posted from another site, which cannot read the page, cannot carry one.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const csrfToken = (secret: string, boundTo: string) => createHmac('sha256', secret).update(`csrf\0${boundTo}`).digest('base64url');

export function csrfMatches(secret: string, boundTo: string, given: unknown): boolean {
  if (typeof given !== 'string' || !given) return false;
  const expected = Buffer.from(csrfToken(secret, boundTo));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
