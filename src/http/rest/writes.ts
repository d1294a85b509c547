// POST /capture, /relate, /changeset: the write path over REST.
import { Hono } from 'hono';
import { capture, changeset, relate } from '../../graph/writes.js';
import type { WriteContext } from '../../graph/apply-changeset.js';
import type { AuthContext } from '../../auth/tokens.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

const restContext = (auth: AuthContext): WriteContext => ({ workspaceId: auth.workspaceId, principalId: auth.principalId, source: 'api' });

/** Agents write here too: that is how they propose, and their writes wait for review (sql/agent_review.sql). */
const writers = () => admits({ principals: ['person', 'agent'], scope: 'write' });

export function writeRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.post('/capture', writers(), async (c) => c.json(await capture(deps, restContext(c.get('auth')), await readJson(c)), 201));
  app.post('/relate', writers(), async (c) => c.json(await relate(deps, restContext(c.get('auth')), await readJson(c)), 201));
  app.post('/changeset', writers(), async (c) => c.json(await changeset(deps, restContext(c.get('auth')), await readJson(c)), 201));
  return app;
}
