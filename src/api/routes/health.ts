// GET /healthz (the process answers) and /readyz (the database answers too): no token needed.
import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';

export function healthRoutes(deps: AppDeps) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true, version: deps.version }));
  app.get('/readyz', async (c) => {
    try {
      await deps.sql`select 1`;
      return c.json({ ok: true });
    } catch (err) {
      return c.json({ error: { code: 'unavailable', message: `database unreachable: ${(err as Error).message}` } }, 503);
    }
  });
  return app;
}
