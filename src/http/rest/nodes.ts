// GET /nodes/:id (with a page of its edges: ?edges_limit=, ?edges_after=), /nodes/:id/versions (a page: ?limit=, ?before=), /nodes/:id/versions/:n.
import { Hono } from 'hono';
import * as v from 'valibot';
import { edgesOfNode, getNode, getNodeVersion, listNodeVersions } from '../../graph/read-nodes.js';
import { EdgeIdSchema, EdgesLimitSchema, RecordIdSchema, VersionNumberSchema, VersionsLimitSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';

const EdgesQuerySchema = v.strictObject({ edges_limit: v.optional(EdgesLimitSchema), edges_after: v.optional(EdgeIdSchema) });
const HistoryQuerySchema = v.strictObject({ limit: v.optional(VersionsLimitSchema), before: v.optional(VersionNumberSchema) });

export function nodeRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/nodes/:id', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(RecordIdSchema, c.req.param('id'), 'id');
    const { edges_limit: limit, edges_after: after } = parseInput(EdgesQuerySchema, c.req.query(), 'query');
    const ws = c.get('auth').workspaceId;
    const node = await getNode(deps.db, ws, id);
    return c.json({ node, ...(await edgesOfNode(deps.db, ws, id, { ...(limit ? { limit } : {}), ...(after ? { after } : {}) })) });
  });
  app.get('/nodes/:id/versions', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(RecordIdSchema, c.req.param('id'), 'id');
    const page = parseInput(HistoryQuerySchema, c.req.query(), 'query');
    return c.json(await listNodeVersions(deps.db, c.get('auth').workspaceId, id, page));
  });
  app.get('/nodes/:id/versions/:n', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(RecordIdSchema, c.req.param('id'), 'id');
    const n = parseInput(VersionNumberSchema, c.req.param('n'), 'version');
    return c.json({ version: await getNodeVersion(deps.db, c.get('auth').workspaceId, id, n) });
  });
  return app;
}
