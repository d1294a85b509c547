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

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('x-content-type-options', 'nosniff');
  c.header('x-frame-options', 'DENY');
  c.header('referrer-policy', 'no-referrer');
  if ((c.res.headers.get('content-type') ?? '').startsWith('text/html')) c.header('content-security-policy', CONSOLE_CSP);
  else c.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
};
