// Headers every answer carries. The console is server-rendered and runs no script, so its pages
// can forbid scripts, frames and foreign forms outright; the JSON API gets nosniff and the same
// framing and referrer rules, which cost it nothing.
import type { MiddlewareHandler } from 'hono';

/**
 * What a console page may load: its own stylesheet and images, forms posting back to itself, and
 * no script at all. Inline style attributes stay allowed (31 of them, the overview's bar widths
 * among them): with no script, CSS is the most an injected attribute could carry, and every
 * value is escaped anyway.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers of an answer that is not a console page: JSON, text, and the answers node-errors.ts gives before the app runs. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/**
 * Set on the answer's own headers, as Hono's secureHeaders does: `c.header()` once the route has
 * answered builds the Response anew for every header, and each copy turned @hono/node-server's
 * plain body into a web stream that the server then had to read back to write the answer.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) headers.set(name, value);
  if ((headers.get('content-type') ?? '').startsWith('text/html')) headers.set('content-security-policy', CONSOLE_CSP);
};
