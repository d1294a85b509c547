// GET /search?q=&type=&shape=&collection=&limit=: hybrid search over records, one result per
// record, best first, down to the relevance floor: `{results, nothing_matched_well}`.
import { Hono } from 'hono';
import { parseInput } from '../../lib/validate.js';
import { searchRecords, SearchQuerySchema } from '../../retrieval/search.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';

export function searchRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/search', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const query = parseInput(SearchQuerySchema, c.req.query(), 'search');
    return c.json(await searchRecords(deps, c.get('auth').workspaceId, query));
  });
  return app;
}
