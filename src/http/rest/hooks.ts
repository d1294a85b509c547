// POST /hooks/:agent/:event: the server side of agent hooks (docs/agents.md). The body is the
// agent's own hook stdin JSON; the answer is exactly the JSON the agent reads from stdout, with
// the stored brief's id in the Doco-Brief-Id header (for commit trailers). Read tokens may call it.
import { Hono } from 'hono';
import { parseRoute } from '../../hooks/agents.js';
import { respondToHook } from '../../hooks/respond.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

export function hookRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.post('/hooks/:agent/:event', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const { agent, event } = parseRoute(c.req.param('agent'), c.req.param('event'));
    const auth = c.get('auth');
    const result = await respondToHook(
      deps,
      { workspaceId: auth.workspaceId, principalId: auth.principalId },
      agent,
      event,
      await readJson(c),
    );
    if (result.briefId) c.header('Doco-Brief-Id', result.briefId);
    return c.json(result.output);
  });
  return app;
}
