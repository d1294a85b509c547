// POST /align: the documentation-alignment scan over REST — the changed files (with their
// patches) in, the report of the doc sections that expect them out (src/align/report.ts).
import { Hono } from 'hono';
import { AlignRequestSchema } from '../../align/request.js';
import { alignChanges } from '../../align/scan.js';
import { parseInput } from '../../lib/validate.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

export function alignRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.post('/align', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const req = parseInput(AlignRequestSchema, await readJson(c), 'align');
    return c.json(await alignChanges(deps, c.get('auth').workspaceId, req));
  });
  return app;
}
