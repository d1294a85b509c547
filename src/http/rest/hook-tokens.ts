// GET /whoami: what a token is (its workspace, scope and principal), so an installer can check a
// token against the server before it writes a file. POST /hooks/tokens: the tokens
// `doco hooks install` needs, minted by the server for a person's write token.
import { Hono } from 'hono';
import { mintAgentTokens } from '../../auth/agent-tokens.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

export function hookTokenRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.get('/whoami', admits({ principals: ['person', 'agent'], scope: 'read' }), (c) => {
    const auth = c.get('auth');
    return c.json({ workspace: auth.workspaceSlug, scope: auth.scope, principal: auth.principalName });
  });
  // An agent cannot mint itself tokens (mintAgentTokens refuses it too).
  app.post('/hooks/tokens', admits({ principals: ['person'], scope: 'write', action: 'minting hook tokens' }), async (c) =>
    c.json(await mintAgentTokens(deps.db, c.get('auth'), await readJson(c)), 201),
  );
  return app;
}
