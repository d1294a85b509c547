// The Hono app: REST under /api/v1, MCP at /mcp, health checks; one error shape throughout. Every
// route declares whom it admits (./admits.ts); behind a token, one that does not admits only a
// person's write token.
import { Hono } from 'hono';
import { consoleRoutes } from './console/app.js';
import { AppError } from '../errors.js';
import { handleMcpRequest } from './mcp/server.js';
import { admits } from './admits.js';
import { authenticated } from './auth.js';
import type { AppDeps, AppEnv } from './deps.js';
import { BodyBudget } from './body.js';
import { errorResponse } from './errors.js';
import { checkHost } from './host-check.js';
import { securityHeaders } from './security-headers.js';
import { alignRoutes } from './rest/align.js';
import { briefLinkRoutes, briefRoutes } from './rest/brief.js';
import { collectionRoutes } from './rest/collections.js';
import { connectorRoutes } from './rest/connectors.js';
import { docsPackRoutes, docsRoutes } from './rest/docs.js';
import { githubWebhookRoutes } from './rest/github-webhook.js';
import { healthRoutes } from './rest/health.js';
import { hookTokenRoutes } from './rest/hook-tokens.js';
import { hookRoutes } from './rest/hooks.js';
import { nodeRoutes } from './rest/nodes.js';
import { notionWebhookRoutes } from './rest/notion-webhook.js';
import { searchRoutes } from './rest/search.js';
import { slackEventRoutes } from './rest/slack-events.js';
import { writeRoutes } from './rest/writes.js';

/** Bytes that bodies read without a token (webhooks, the sign-in form) may hold together. */
export const UNAUTHENTICATED_BODY_BYTES = 16 * 1024 * 1024;

export function buildApp(appDeps: AppDeps) {
  const deps: AppDeps = { ...appDeps, bodyBudget: appDeps.bodyBudget ?? new BodyBudget(UNAUTHENTICATED_BODY_BYTES) };
  const app = new Hono<AppEnv>();
  app.onError((err, c) => errorResponse(c, err));
  // The path is echoed JSON-escaped and cut short: an error body never carries raw input at length.
  app.notFound((c) => errorResponse(c, new AppError('not_found', `no route for ${c.req.method} ${c.req.path.slice(0, 200)}`)));
  app.use('*', securityHeaders);
  if (deps.hostPolicy) app.use('*', checkHost(deps.hostPolicy));

  const health = healthRoutes(deps);
  app.route('/', health);
  app.route('/api/v1', health);
  app.route('/api/v1', docsPackRoutes()); // Doco's own docs pack: public, before the token check
  app.route('/api/v1', briefLinkRoutes()); // a Doco-Brief link opened in a browser: to the console's page, before the token check
  app.route('/', githubWebhookRoutes(deps)); // signed by GitHub, not by a bearer token
  app.route('/', notionWebhookRoutes(deps)); // signed with the subscription's verification token
  app.route('/', slackEventRoutes(deps)); // signed by Slack

  const api = new Hono<AppEnv>();
  api.use('*', authenticated(deps.sql));
  api.route('/', collectionRoutes(deps));
  api.route('/', writeRoutes(deps));
  api.route('/', nodeRoutes(deps));
  api.route('/', briefRoutes(deps));
  api.route('/', searchRoutes(deps));
  api.route('/', docsRoutes(deps));
  api.route('/', hookTokenRoutes(deps));
  api.route('/', hookRoutes(deps));
  api.route('/', connectorRoutes(deps));
  api.route('/', alignRoutes(deps));
  app.route('/api/v1', api);

  // Any token may open the MCP endpoint; each tool declares whom it admits (mcp/tool.ts).
  app.all('/mcp', authenticated(deps.sql), admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) =>
    handleMcpRequest(deps, c.get('auth'), c),
  );
  app.route('/', consoleRoutes(deps)); // the console (src/http/console): `/` and its pages, by path
  return app;
}

export type DocoApp = ReturnType<typeof buildApp>;
