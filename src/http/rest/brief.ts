// GET /brief.json, POST /brief, GET /briefs/:id: the brief over REST.
// `?format=text` (or Accept: text/plain) answers with the plain-text rendering hooks use;
// `?format=json` with JSON, whatever the Accept; any other format is refused.
// GET /briefs/:id is also the link a commit's `Doco-Brief:` trailer carries: opened in a browser,
// it goes on to the console's page for the brief (`briefLinkRoutes`).
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { composeVersionedBrief } from '../../brief/compose.js';
import { renderBrief } from '../../brief/render.js';
import { getStoredBrief } from '../../brief/stored.js';
import { BriefRequestSchema } from '../../brief/types.js';
import { parseInput } from '../../lib/validate.js';
import { admits } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { isApiClient } from '../negotiate.js';
import { readJson } from '../read-json.js';

const BriefIdSchema = v.pipe(v.string(), v.regex(/^brief_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a brief id such as brief_01K…'));
const numeric = (s: string | undefined) => (s === undefined ? undefined : /^-?\d+$/.test(s) ? Number(s) : s);

const FormatQuerySchema = v.object({ format: v.optional(v.picklist(['json', 'text'], 'must be json or text')) });

/** Whether to answer the plain-text rendering: checked before a brief is composed or read, so a bad format costs nothing. */
function wantsText(c: Context): boolean {
  const { format } = parseInput(FormatQuerySchema, { format: c.req.query('format') }, 'brief');
  return format ? format === 'text' : (c.req.header('accept') ?? '').startsWith('text/plain');
}

export function briefRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const answer = async (c: Context<AppEnv>, raw: unknown) => {
    const text = wantsText(c);
    const req = parseInput(BriefRequestSchema, raw, 'brief');
    const auth = c.get('auth');
    const { brief, json } = await composeVersionedBrief(deps, { workspaceId: auth.workspaceId, principalId: auth.principalId }, req);
    // The JSON already written for storing: serialising the brief again would cost as much.
    return text ? c.text(renderBrief(brief)) : c.body(json, 200, { 'content-type': 'application/json' });
  };
  app.get('/brief.json', admits({ principals: ['person', 'agent'], scope: 'read' }), (c) => {
    const q = c.req.query();
    const raw = Object.fromEntries(
      Object.entries({
        about: q.about,
        touching: c.req.queries('touching'),
        code_terms: c.req.queries('code_terms'),
        budget: numeric(q.budget),
        since: q.since,
        collection: q.collection,
        deadline_ms: numeric(q.deadline_ms),
        as_of: q.as_of,
        after_changeset: q.after_changeset,
      }).filter(([, val]) => val !== undefined),
    );
    return answer(c, raw);
  });
  app.post('/brief', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => answer(c, await readJson(c)));
  app.get('/briefs/:id', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const id = parseInput(BriefIdSchema, c.req.param('id'), 'id');
    const text = wantsText(c);
    const stored = await getStoredBrief(deps.sql, c.get('auth').workspaceId, id);
    return text ? c.text(renderBrief(stored.brief)) : c.json(stored.brief);
  });
  return app;
}

/**
 * A `Doco-Brief:` link opened in a browser (no bearer token, HTML preferred): 303 to the console's
 * `/briefs/:id`, whose session check comes before any lookup, so this answer is the same whether
 * the brief exists or not, and reads nothing. Mounted before the token check (../app.ts); every
 * other caller goes on to `GET /briefs/:id` above, whose declaration it is (a token's JSON, or 401).
 */
export function briefLinkRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/briefs/:id', async (c, next) => {
    if (isApiClient(c)) return next();
    return c.redirect(`/briefs/${encodeURIComponent(c.req.param('id'))}`, 303);
  });
  return app;
}
