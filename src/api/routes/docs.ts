// The docs endpoints (DESIGN §6, seed 003): register, list and delete docs packs, search the
// ingested docs, read one document's sections, and Doco's own pack (public: see docsPackRoutes).
import { Hono } from 'hono';
import * as v from 'valibot';
import { AppError } from '../../errors.js';
import { parseInput } from '../../graph/schemas.js';
import { deletePackDocs } from '../../ingest/packs/delete.js';
import { PackCodeSchema } from '../../ingest/packs/format.js';
import { readOwnPack } from '../../ingest/packs/own-pack.js';
import { findPack, listPacks, registerPack } from '../../ingest/packs/registry.js';
import { cancelPackPull, PACK_PULL_TASK, queuePackPull } from '../../jobs/pack-tasks.js';
import { readDocument, searchDocs } from '../../search/docs-search.js';
import { writeScope } from '../auth.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

/** An http(s) URL the pack route can be appended to: no credentials, query or fragment. */
function isBaseUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && !u.search && !u.hash && !s.includes('?') && !s.includes('#');
  } catch {
    return false;
  }
}

const RegisterSchema = v.strictObject({
  code: PackCodeSchema,
  base_url: v.pipe(
    v.string(),
    v.trim(),
    v.maxLength(2000, 'must be at most 2000 characters'),
    v.check(isBaseUrl, 'must be an http(s) URL without credentials, query or fragment, such as http://billing.internal:8080'),
    v.transform((s) => s.replace(/\/+$/, '')),
  ),
});

const SearchSchema = v.strictObject({
  query: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(4000, 'must be at most 4000 characters')),
  limit: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1), v.maxValue(50)), 10),
  code: v.optional(PackCodeSchema),
});

const DocumentQuerySchema = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(1000, 'must be at most 1000 characters')),
});

/** GET /system/docs/pack: no token, so any service (or another Doco) can pull Doco's docs. */
export function docsPackRoutes() {
  const app = new Hono();
  app.get('/system/docs/pack', async (c) => c.json(await readOwnPack()));
  return app;
}

export function docsRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  app.post('/system/docs/packs', writeScope, async (c) => {
    const input = parseInput(RegisterSchema, await readJson(c), 'docs pack registration');
    const ws = c.get('auth').workspaceId;
    // The job is queued in the registering transaction: a registration never lacks its pull.
    const { pack, jobId } = await deps.sql.begin(async (tx) => {
      const pack = await registerPack(tx, ws, input.code, input.base_url);
      return { pack, jobId: await queuePackPull(tx, ws, input.code) };
    });
    return c.json({ pack, job: { task: PACK_PULL_TASK, id: jobId } }, 202);
  });

  app.get('/system/docs/packs', async (c) => c.json({ packs: await listPacks(deps.sql, c.get('auth').workspaceId) }));

  app.delete('/system/docs/packs/:code', writeScope, async (c) => {
    const code = parseInput(PackCodeSchema, c.req.param('code'), 'code');
    const ws = c.get('auth').workspaceId;
    if (!(await findPack(deps.sql, ws, code))) throw new AppError('not_found', `no docs pack "${code}" is registered in this workspace`);
    await cancelPackPull(deps.sql, ws, code);
    const { retired } = await deletePackDocs(deps, ws, code);
    return c.json({ code, deleted: true, retired });
  });

  app.post('/system/docs/search', async (c) => {
    const input = parseInput(SearchSchema, await readJson(c), 'docs search');
    return c.json(await searchDocs(deps, c.get('auth').workspaceId, input));
  });

  app.get('/system/docs/document', async (c) => {
    const { path } = parseInput(DocumentQuerySchema, c.req.query(), 'document query');
    const doc = await readDocument(deps.sql, c.get('auth').workspaceId, path);
    if (!doc) throw new AppError('not_found', `no ingested document has the path ${JSON.stringify(path)}`);
    return c.json(doc);
  });

  return app;
}
