// Sends a rendered page: the doctype, then the element hono/jsx built (already escaped).
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export async function sendPage(c: Context, page: unknown, status: ContentfulStatusCode = 200): Promise<Response> {
  const body = `<!DOCTYPE html>${String(await page)}`;
  c.header('cache-control', 'no-store');
  return c.html(body, status);
}
