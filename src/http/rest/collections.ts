// GET /templates, GET|POST /collections, PATCH /collections/:slug and GET|PATCH /workspace (the
// agents_may_activate setting: whether agents' writes wait for review).
import { Hono } from 'hono';
import * as v from 'valibot';
import {
  getWorkspaceSettings,
  refuseAgent,
  setCollectionAgentsMayActivate,
  setWorkspaceAgentsMayActivate,
} from '../../graph/agent-review.js';
import { createCollection, listCollections, listTemplates } from '../../graph/collections.js';
import { CollectionInputSchema, SlugSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { writeScope } from '../auth.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

const CollectionSettingsSchema = v.strictObject({
  agents_may_activate: v.nullable(v.boolean('must be true, false or null (follow the workspace)')),
});
const WorkspaceSettingsSchema = v.strictObject({ agents_may_activate: v.boolean('must be true or false') });

export function collectionRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/templates', async (c) => c.json({ templates: await listTemplates(deps.db) }));
  app.get('/collections', async (c) => c.json({ collections: await listCollections(deps.db, c.get('auth').workspaceId) }));
  app.post('/collections', writeScope, async (c) => {
    const input = parseInput(CollectionInputSchema, await readJson(c), 'collection');
    return c.json({ collection: await createCollection(deps.db, c.get('auth').workspaceId, input) }, 201);
  });
  app.patch('/collections/:slug', writeScope, async (c) => {
    const auth = c.get('auth');
    refuseAgent(auth.principalName);
    const slug = parseInput(SlugSchema, c.req.param('slug'), 'collection slug');
    const input = parseInput(CollectionSettingsSchema, await readJson(c), 'collection settings');
    return c.json({ collection: await setCollectionAgentsMayActivate(deps.db, auth.workspaceId, slug, input.agents_may_activate) });
  });
  app.get('/workspace', async (c) => c.json({ workspace: await getWorkspaceSettings(deps.db, c.get('auth').workspaceId) }));
  app.patch('/workspace', writeScope, async (c) => {
    const auth = c.get('auth');
    refuseAgent(auth.principalName);
    const input = parseInput(WorkspaceSettingsSchema, await readJson(c), 'workspace settings');
    return c.json({ workspace: await setWorkspaceAgentsMayActivate(deps.db, auth.workspaceId, input.agents_may_activate) });
  });
  return app;
}
