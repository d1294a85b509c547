// GET /healthz (the process answers) and /readyz (the database answers too): no token needed.
// With DATABASE_READ_URL, /readyz also says where briefs and searches read and the replica's
// lag, as the last interval check found them (src/db/read-replica.ts): a replica that is down
// or lags leaves this server ready, reading from the primary.
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
      return c.json(deps.reads ? { ok: true, read: deps.reads.status() } : { ok: true });
    } catch (err) {
      // The driver's message names hosts, ports, users and databases: it goes to the operator's
      // log, never to an unauthenticated caller.
      console.error(`[doco] /readyz: database unavailable: ${err instanceof Error ? err.message : String(err)}`);
      return c.json(new AppError('unavailable', 'database unavailable').toBody(), 503);
    }
  });
  return app;
}
