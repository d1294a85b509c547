// GET /healthz (the process answers) and /readyz (the database answers too): no token needed.
import { Hono } from 'hono';
import { AppError } from '../../errors.js';
import { publicRoute } from '../admits.js';
import type { AppDeps } from '../deps.js';

export function healthRoutes(deps: AppDeps) {
  const app = new Hono();
  app.get('/healthz', publicRoute(), (c) => c.json({ ok: true, version: deps.version }));
  app.get('/readyz', publicRoute(), async (c) => {
    try {
      await deps.sql`select 1`;
      return c.json({ ok: true });
    } catch (err) {
      // The driver's message names hosts, ports, users and databases: it goes to the operator's
      // log, never to an unauthenticated caller.
      console.error(`[doco] /readyz: database unavailable: ${err instanceof Error ? err.message : String(err)}`);
      return c.json(new AppError('unavailable', 'database unavailable').toBody(), 503);
    }
  });
  return app;
}
