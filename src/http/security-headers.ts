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

/**
 * Set on the answer's own headers, as Hono's secureHeaders does: `c.header()` once the route has
 * answered builds the Response anew for every header, and each copy turned @hono/node-server's
 * plain body into a web stream that the server then had to read back to write the answer.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set('x-content-type-options', 'nosniff');
  headers.set('x-frame-options', 'DENY');
  headers.set('referrer-policy', 'no-referrer');
  if ((headers.get('content-type') ?? '').startsWith('text/html')) headers.set('content-security-policy', CONSOLE_CSP);
  else headers.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
};
