// The console (docs/console.md): server-rendered pages for the people around the agents, served by
// the same Hono app as REST and MCP. Every route is registered by path (no catch-all middleware),
// so /api/v1 and /mcp never pass through the console's session check.
import { Hono } from 'hono';
import { publicRoute } from '../admits.js';
import type { AppDeps } from '../deps.js';
import { FAVICON_ICO, FAVICON_SVG } from './assets/icon.js';
import { CONSOLE_CSS } from './assets/style.js';
import type { ConsoleEnv } from './env.js';
import { isApiClient } from '../negotiate.js';
import { briefPages } from './pages/briefs.js';
import { docsPages } from './pages/docs.js';
import { consoleError } from './pages/error.js';
import { overviewPage } from './pages/overview.js';
import { recordPage } from './pages/record.js';
import { reviewPage } from './pages/review.js';
import { searchPage } from './pages/search.js';
import { signInPages } from './pages/sign-in.js';
import { tokenPages } from './pages/tokens.js';

const CSS_ETAG = `"${Buffer.from(CONSOLE_CSS).length.toString(36)}-${[...CONSOLE_CSS].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7).toString(36)}"`;

export function consoleRoutes(deps: AppDeps) {
  const app = new Hono<ConsoleEnv>();
  app.onError(consoleError);

  app.get('/console.css', publicRoute(), (c) => {
    if (c.req.header('if-none-match') === CSS_ETAG) return c.body(null, 304);
    c.header('etag', CSS_ETAG);
    c.header('cache-control', 'public, max-age=300');
    return c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8' });
  });

  // The icon (assets/icon.ts): the SVG the layout links, and /favicon.ico for whoever asks without
  // reading a page. Under the same CSP as any non-HTML answer (default-src 'none'): no script.
  const icon = { 'cache-control': 'public, max-age=86400' };
  app.get('/favicon.svg', publicRoute(), (c) => c.body(FAVICON_SVG, 200, { ...icon, 'content-type': 'image/svg+xml' }));
  app.get('/favicon.ico', publicRoute(), (c) => c.body(new Uint8Array(FAVICON_ICO), 200, { ...icon, 'content-type': 'image/x-icon' }));

  // An API client asking for / gets where the APIs are, never the console's HTML (nothing of a
  // workspace's); a browser goes on to the overview, which declares what it admits.
  app.get('/', async (c, next) => {
    if (!isApiClient(c)) return next();
    return c.json({ name: 'doco', version: deps.version, api: '/api/v1', mcp: '/mcp', console: '/', health: '/healthz' });
  });

  app.route('/', signInPages(deps));
  app.route('/', overviewPage(deps));
  app.route('/', reviewPage(deps));
  app.route('/', recordPage(deps));
  app.route('/', briefPages(deps));
  app.route('/', searchPage(deps));
  app.route('/', docsPages(deps));
  app.route('/', tokenPages(deps));
  return app;
}
