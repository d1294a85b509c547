// GET /nodes/:id (with its edges), /nodes/:id/versions, /nodes/:id/versions/:n.
import { Hono } from 'hono';
import * as v from 'valibot';
import { edgesOfNode, getNode, getNodeVersion, listNodeVersions } from '../../graph/read-nodes.js';
import { RecordIdSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';

const VersionSchema = v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/, 'must be a version number (1, 2, …)'), v.transform(Number));

export function nodeRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/nodes/:id', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(RecordIdSchema, c.req.param('id'), 'id');
    const ws = c.get('auth').workspaceId;
    const node = await getNode(deps.db, ws, id);
    return c.json({ node, edges: await edgesOfNode(deps.db, ws, id) });
  });
  app.get('/nodes/:id/versions', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(RecordIdSchema, c.req.param('id'), 'id');
    return c.json({ versions: await listNodeVersions(deps.db, c.get('auth').workspaceId, id) });
  });
  app.get('/nodes/:id/versions/:n', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(RecordIdSchema, c.req.param('id'), 'id');
    const n = parseInput(VersionSchema, c.req.param('n'), 'version');
    return c.json({ version: await getNodeVersion(deps.db, c.get('auth').workspaceId, id, n) });
  });
  return app;
}
