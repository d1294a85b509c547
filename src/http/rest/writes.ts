// POST /capture, /relate, /changeset: the write path over REST.
import { Hono } from 'hono';
import { capture, changeset, relate } from '../../graph/writes.js';
import type { WriteContext } from '../../graph/apply-changeset.js';
import type { AuthContext } from '../../auth/tokens.js';
import { writeScope } from '../auth.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

const restContext = (auth: AuthContext): WriteContext => ({ workspaceId: auth.workspaceId, principalId: auth.principalId, source: 'api' });

export function writeRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.post('/capture', writeScope, async (c) => c.json(await capture(deps, restContext(c.get('auth')), await readJson(c)), 201));
  app.post('/relate', writeScope, async (c) => c.json(await relate(deps, restContext(c.get('auth')), await readJson(c)), 201));
  app.post('/changeset', writeScope, async (c) => c.json(await changeset(deps, restContext(c.get('auth')), await readJson(c)), 201));
  return app;
}
