// The docs endpoints (docs/ingest.md, docs/docs-pack.md): register, list and delete docs packs, search the
// ingested docs, read one document's sections, and Doco's own pack (public: see docsPackRoutes).
import { Hono } from 'hono';
import * as v from 'valibot';
import { AppError } from '../../errors.js';
import { parseInput } from '../../lib/validate.js';
import { PackBaseUrlSchema, PackCodeSchema } from '../../ingest/packs/format.js';
import { readOwnPack } from '../../ingest/packs/own-pack.js';
import { findPack, listPacks } from '../../ingest/packs/registry.js';
import { PACK_PULL_TASK, registerAndQueuePull, unregisterPack } from '../../ingest/packs/queue.js';
import { readDocument, searchDocs } from '../../retrieval/docs-search.js';
import { admits, publicRoute } from '../admits.js';
import type { AppDeps, AppEnv } from '../deps.js';
import { readJson } from '../read-json.js';

const RegisterSchema = v.strictObject({ code: PackCodeSchema, base_url: PackBaseUrlSchema });

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
  app.get('/system/docs/pack', publicRoute(), async (c) => c.json(await readOwnPack()));
  return app;
}

export function docsRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  // A pack's docs are in every brief (a principle among them is obeyed): a person's to add or remove.
  app.post('/system/docs/packs', admits({ principals: ['person'], scope: 'write', action: 'registering a docs pack' }), async (c) => {
    const input = parseInput(RegisterSchema, await readJson(c), 'docs pack registration');
    const ws = c.get('auth').workspaceId;
    const { pack, jobId } = await registerAndQueuePull(deps.sql, deps.packHosts ?? [], ws, input.code, input.base_url);
    return c.json({ pack, job: { task: PACK_PULL_TASK, id: jobId } }, 202);
  });

  app.get('/system/docs/packs', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) =>
    c.json({ packs: await listPacks(deps.sql, c.get('auth').workspaceId) }),
  );

  app.delete('/system/docs/packs/:code', admits({ principals: ['person'], scope: 'write', action: 'deleting a docs pack' }), async (c) => {
    const code = parseInput(PackCodeSchema, c.req.param('code'), 'code');
    const ws = c.get('auth').workspaceId;
    if (!(await findPack(deps.sql, ws, code))) throw new AppError('not_found', `no docs pack "${code}" is registered in this workspace`);
    const { retired } = await unregisterPack(deps, ws, code);
    return c.json({ code, deleted: true, retired });
  });

  app.post('/system/docs/search', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const input = parseInput(SearchSchema, await readJson(c), 'docs search');
    return c.json(await searchDocs(deps, c.get('auth').workspaceId, input));
  });

  app.get('/system/docs/document', admits({ principals: ['person', 'agent'], scope: 'read' }), async (c) => {
    const { path } = parseInput(DocumentQuerySchema, c.req.query(), 'document query');
    const doc = await readDocument(deps.sql, c.get('auth').workspaceId, path);
    if (!doc) throw new AppError('not_found', `no ingested document has the path ${JSON.stringify(path)}`);
    return c.json(doc);
  });

  return app;
}
