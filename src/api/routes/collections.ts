// GET /templates, GET|POST /collections.
import { Hono } from 'hono';
import { createCollection, listCollections, listTemplates } from '../../graph/collections.js';
import { CollectionInputSchema, parseInput } from '../../graph/schemas.js';
import { writeScope } from '../auth.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

export function collectionRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/templates', async (c) => c.json({ templates: await listTemplates(deps.db) }));
  app.get('/collections', async (c) => c.json({ collections: await listCollections(deps.db, c.get('auth').workspaceId) }));
  app.post('/collections', writeScope, async (c) => {
    const input = parseInput(CollectionInputSchema, await readJson(c), 'collection');
    return c.json({ collection: await createCollection(deps.db, c.get('auth').workspaceId, input) }, 201);
  });
  return app;
}
