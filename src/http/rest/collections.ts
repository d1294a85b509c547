// GET /templates, GET|POST /collections, PATCH /collections/:slug and GET|PATCH /workspace (the
// agents_may_activate setting: whether agents' writes wait for review).
import { Hono } from 'hono';
import * as v from 'valibot';
import { getWorkspaceSettings, setCollectionAgentsMayActivate, setWorkspaceAgentsMayActivate } from '../../graph/agent-review.js';
import { createCollection, listCollections, listTemplates } from '../../graph/collections.js';
import { CollectionInputSchema, SlugSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

const CollectionSettingsSchema = v.strictObject({
  agents_may_activate: v.nullable(v.boolean('must be true, false or null (follow the workspace)')),
});
const WorkspaceSettingsSchema = v.strictObject({ agents_may_activate: v.boolean('must be true or false') });

const settings = () => admits({ principals: ['person'], scope: 'write', action: "changing whether agents' writes wait for review" });

export function collectionRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/templates', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) =>
    c.json({ templates: await listTemplates(deps.db) }),
  );
  app.get('/collections', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) =>
    c.json({ collections: await listCollections(deps.db, c.get('auth').workspaceId) }),
  );
  // A collection's goal is in every brief at once: a person's to set.
  app.post('/collections', admits({ principals: ['person'], scope: 'write', action: 'creating a collection' }), async (c) => {
    const input = parseInput(CollectionInputSchema, await readJson(c), 'collection');
    return c.json({ collection: await createCollection(deps.db, c.get('auth').workspaceId, input) }, 201);
  });
  // Whether agents' writes wait for review: an agent may not lift its own review.
  app.patch('/collections/:slug', settings(), async (c) => {
    const auth = c.get('auth');
    const slug = parseInput(SlugSchema, c.req.param('slug'), 'collection slug');
    const input = parseInput(CollectionSettingsSchema, await readJson(c), 'collection settings');
    return c.json({ collection: await setCollectionAgentsMayActivate(deps.db, auth.workspaceId, slug, input.agents_may_activate) });
  });
  app.get('/workspace', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) =>
    c.json({ workspace: await getWorkspaceSettings(deps.db, c.get('auth').workspaceId) }),
  );
  app.patch('/workspace', settings(), async (c) => {
    const auth = c.get('auth');
    const input = parseInput(WorkspaceSettingsSchema, await readJson(c), 'workspace settings');
    return c.json({ workspace: await setWorkspaceAgentsMayActivate(deps.db, auth.workspaceId, input.agents_may_activate) });
  });
  return app;
}
