// The docs endpoints over REST: register a pack served by a second Hono app on loopback (202
// and a queued docs__pack_pull), run the queued job, then search, read a document, delete;
// Doco's own pack; bad input, scopes and workspace isolation in the one error shape.
import { serve, type ServerType } from '@hono/node-server';
import type { JobHelpers } from 'graphile-worker';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDocSections } from '../../../src/ingest/docs/ingest.js';
import { splitMarkdown } from '../../../src/ingest/docs/sections.js';
import { fetchDocsPack } from '../../../src/ingest/packs/fetch.js';
import { DocsPackSchema } from '../../../src/ingest/packs/format.js';
import { packPull } from '../../../src/jobs/pack-tasks.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';
import { LOOPBACK_PACK_HOSTS, markdown, openapi, startPackService, type PackService } from '../../helpers/pack-service.js';
import { drainAll, localProviders } from '../../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let svc: PackService;
const providers = localProviders();

const billingPack = {
  format: 1,
  code: 'billing',
  files: [
    {
      path: 'docs/invoices.md',
      content: markdown('Invoices', ['Numbering', 'Voiding', 'Currencies'], {
        Numbering: 'stays gapless because numbers are taken at finalisation; ',
      }),
    },
  ],
  openapi,
};
/** The queued pulls (the payload is only in graphile-worker's private table, not its jobs view). */
const jobs = () => t.sql<{ id: string; payload: { workspaceId: string; code: string } }[]>`
  select j.id::text, j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
   where k.identifier = 'docs__pack_pull' order by j.id`;
const silentHelpers = { logger: { info: () => {}, debug: () => {} } } as unknown as JobHelpers;

/** Runs every queued pack pull as the worker would, then indexes what changed. */
async function runQueuedPulls() {
  const queued = await jobs();
  for (const { payload } of queued) await packPull({ sql: t.sql, db: t.db, packHosts: LOOPBACK_PACK_HOSTS })(payload, silentHelpers);
  await t.sql`delete from graphile_worker._private_jobs where id = any(${queued.map((j) => j.id)}::bigint[])`;
  await drainAll(t.sql, providers);
}

const search = (body: unknown, token = ws.readToken) => api.call('POST', '/api/v1/system/docs/search', token, body);
const doc = (path: string, token = ws.readToken) => api.call('GET', `/api/v1/system/docs/document?path=${encodeURIComponent(path)}`, token);
/** Rejected with this status and code, leaving no record, registration or job behind. */
const rejected = (status: number, code: string, fn: () => Promise<{ status: number; body: unknown }>) =>
  expectNoWrite(t, async () => {
    const before = { packs: await t.sql`select * from doco.docs_packs`, jobs: await jobs() };
    const res = expectError(await fn(), status, code);
    expect({ packs: await t.sql`select * from doco.docs_packs`, jobs: await jobs() }).toEqual(before);
    return res;
  });

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'docs');
  other = await makeWorkspace(t, 'other');
  // The pack service listens on 127.0.0.1: listed, as an operator lists a service on a private network.
  api = makeApp(t, undefined, providers, { packHosts: LOOPBACK_PACK_HOSTS });
  svc = await startPackService(billingPack);
  const guide = splitMarkdown('docs/guide.md', markdown('Guide', ['Local setup', 'Releases'])).sections;
  await ingestDocSections(
    { sql: t.sql, db: t.db },
    { workspaceId: ws.id, principalId: ws.principalId, source: 'fs', root: '/repo', files: [{ path: 'docs/guide.md', sections: guide }] },
  );
});
afterAll(async () => {
  await svc.close();
  await t.drop();
});

describe("Doco's own docs pack", () => {
  it('is served without a token: README.md and docs/, a valid pack another Doco can fetch', async () => {
    const res = await api.call('GET', '/api/v1/system/docs/pack', undefined);
    expect(res.status).toBe(200);
    const pack = v.parse(DocsPackSchema, res.body);
    expect(pack.code).toBe('doco');
    expect(pack.files[0]!.path).toBe('README.md');
    expect(pack.files[0]!.content.startsWith('# Doco')).toBe(true);
    expect(pack.files.map((f) => f.path)).toContain('docs/docs-pack.md');
    expect(pack.files.every((f) => f.path === 'README.md' || f.path.startsWith('docs/'))).toBe(true);
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: api.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    try {
      const fetched = await fetchDocsPack(LOOPBACK_PACK_HOSTS, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'doco');
      expect(fetched.files).toEqual(pack.files);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('registering a pack', () => {
  it('answers 202 with the registration and queues docs__pack_pull in the same transaction', async () => {
    const res = await api.call('POST', '/api/v1/system/docs/packs', ws.writeToken, { code: 'billing', base_url: `${svc.baseUrl}/` });
    expect(res.status).toBe(202);
    expect(res.body.pack).toMatchObject({
      code: 'billing',
      base_url: svc.baseUrl,
      last_fetched_at: null,
      last_hash: null,
      last_error: null,
    });
    expect(res.body.job).toEqual({ task: 'docs__pack_pull', id: expect.stringMatching(/^\d+$/) });
    expect((await jobs()).map((j) => j.payload)).toEqual([{ workspaceId: ws.id, code: 'billing' }]);
    // Registering again before the job ran replaces the waiting job rather than adding one.
    expect((await api.call('POST', '/api/v1/system/docs/packs', ws.writeToken, { code: 'billing', base_url: svc.baseUrl })).status).toBe(
      202,
    );
    expect(await jobs()).toHaveLength(1);
  });

  it("once the job ran, the pack's sections are found by the docs search and the brief", async () => {
    await runQueuedPulls();
    const listed = await api.call('GET', '/api/v1/system/docs/packs', ws.readToken);
    expect(listed.body.packs).toEqual([
      expect.objectContaining({ code: 'billing', last_error: null, last_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
    const res = await search({ query: 'why invoice numbering stays gapless at finalisation', limit: 3 });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      path: 'billing:docs/invoices.md',
      heading: 'Numbering',
      section_key: 'billing:docs/invoices.md#numbering',
      source: 'pack:billing',
    });
    expect(res.body.results[0].text).toContain('stays gapless');
    expect(Object.keys(res.body.results[0]).sort()).toEqual(['heading', 'id', 'path', 'score', 'section_key', 'source', 'text']);
    const api2 = await search({ query: 'fetch one invoice by id', code: 'billing' });
    expect(api2.body.results.map((r: { path: string }) => r.path)).toContain('billing-openapi');
    expect(new Set(api2.body.results.map((r: { source: string }) => r.source))).toEqual(new Set(['pack:billing']));
    expect((await search({ query: 'invoice numbering', code: 'payments' })).body.results).toEqual([]);
    const fs = await search({ query: 'local setup of the guide' });
    expect(fs.body.results.map((r: { source: string }) => r.source)).toContain('fs');
    const brief = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'invoice numbering gapless finalisation' });
    expect(brief.status).toBe(200);
    const items = Object.values(brief.body.tiers as Record<string, { source: { kind: string; pointer: { path: string } } }[]>).flat();
    expect(items.some((i) => i.source.kind === 'docs_pack' && i.source.pointer.path === 'billing:docs/invoices.md')).toBe(true);
  });

  it("GET /system/docs/document returns one document's sections in order", async () => {
    const res = await doc('billing:docs/invoices.md');
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('pack:billing');
    expect(res.body.sections.map((s: { heading: string }) => s.heading)).toEqual(['(intro)', 'Numbering', 'Voiding', 'Currencies']);
    const spec = await doc('billing-openapi');
    expect(spec.body.sections.map((s: { heading: string }) => s.heading)).toEqual([
      '(intro)',
      'POST /invoices',
      'GET /invoices/{id}',
      'Schema Invoice',
    ]);
    expect((await doc('docs/guide.md')).body.source).toBe('fs');
    expectError(await doc('billing:docs/nope.md'), 404, 'not_found');
    expectError(await doc('billing:docs/invoices.md', other.readToken), 404, 'not_found');
    expectError(await api.call('GET', '/api/v1/system/docs/document', ws.readToken), 400, 'validation_failed');
  });
});

describe('bad input, scopes and isolation', () => {
  const register = (body: unknown, token = ws.writeToken) => api.call('POST', '/api/v1/system/docs/packs', token, body);

  it('refuses a bad registration with 400 and writes nothing', async () => {
    const url = svc.baseUrl;
    for (const body of [
      { base_url: url },
      { code: 'billing' },
      { code: 'Billing!', base_url: url },
      { code: 'billing', base_url: 'not a url' },
      { code: 'billing', base_url: 'ftp://files.internal/docs' },
      { code: 'billing', base_url: 'http://user:secret@billing.internal' },
      { code: 'billing', base_url: `${url}/?token=1` },
      { code: 'billing', base_url: url, secret: true },
    ]) {
      const err = await rejected(400, 'validation_failed', () => register(body));
      expect(err.message).toMatch(/^docs pack registration is invalid: /);
    }
    const notAnObject = await rejected(400, 'validation_failed', () => register([]));
    expect(notAnObject.message).toBe('the body must be a JSON object, not an array');
  });

  it('refuses with 400 a base URL the host policy refuses without DNS: a loopback, private, link-local or metadata address not listed', async () => {
    // Without the operator's list (this file's app lists 127.0.0.1, which localhost resolves to).
    const strict = makeApp(t, undefined, providers);
    for (const base_url of [
      'http://127.0.0.2:8080',
      'http://localhost:8080',
      'http://api.localhost',
      'http://[::1]:8080',
      'http://[::ffff:127.0.0.2]',
      'http://2130706434', // 127.0.0.2, as the URL parser reads it
      'http://10.1.2.3',
      'http://192.168.0.10',
      'http://100.64.0.1',
      'http://0.0.0.0:8080',
      'http://169.254.169.254',
      'http://[fd00:ec2::254]',
      'http://[fe80::1]',
      'http://224.0.0.1',
    ]) {
      const err = await rejected(400, 'validation_failed', () =>
        strict.call('POST', '/api/v1/system/docs/packs', ws.writeToken, { code: 'billing', base_url }),
      );
      expect(err.message).toMatch(/^docs pack registration is invalid: base_url names a .* address; .* DOCO_PACK_HOSTS$/);
    }
    expectError(
      await strict.call('POST', '/api/v1/system/docs/packs', ws.writeToken, { code: 'billing', base_url: svc.baseUrl }),
      400,
      'validation_failed',
    );
  });

  it('refuses a body that is not JSON with 415', async () => {
    await rejected(415, 'unsupported_media_type', async () => {
      const res = await api.app.request('/api/v1/system/docs/packs', {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.writeToken}`, 'content-type': 'text/plain' },
        body: 'code=billing',
      });
      return { status: res.status, body: await res.json() };
    });
  });

  it('refuses a bad search with 400', async () => {
    for (const body of [
      {},
      { query: '' },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 51 },
      { query: 'x', code: 'No Such!' },
      { query: 'x', extra: 1 },
    ]) {
      expectError(await search(body), 400, 'validation_failed');
    }
  });

  it('needs a write token to register or delete, and any token to read', async () => {
    await rejected(403, 'forbidden', () => register({ code: 'payments', base_url: svc.baseUrl }, ws.readToken));
    await rejected(403, 'forbidden', () => api.call('DELETE', '/api/v1/system/docs/packs/billing', ws.readToken));
    await rejected(401, 'unauthorized', () => register({ code: 'payments', base_url: svc.baseUrl }, ''));
    expectError(await search({ query: 'invoices' }, ''), 401, 'unauthorized');
    expectError(await api.call('GET', '/api/v1/system/docs/packs', undefined), 401, 'unauthorized');
  });

  it("keeps a workspace out of another's packs and docs", async () => {
    expect((await search({ query: 'invoice numbering gapless' }, other.readToken)).body.results).toEqual([]);
    expect((await api.call('GET', '/api/v1/system/docs/packs', other.readToken)).body.packs).toEqual([]);
    await rejected(404, 'not_found', () => api.call('DELETE', '/api/v1/system/docs/packs/billing', other.writeToken));
  });
});

describe('deleting a pack', () => {
  it("removes that code's docs and a waiting pull, leaves the filesystem's, and is 404 once gone", async () => {
    expect((await api.call('POST', '/api/v1/system/docs/packs', ws.writeToken, { code: 'billing', base_url: svc.baseUrl })).status).toBe(
      202,
    );
    expect(await jobs()).toHaveLength(1);
    const sections = (await doc('billing:docs/invoices.md')).body.sections.length + (await doc('billing-openapi')).body.sections.length;
    const res = await api.call('DELETE', '/api/v1/system/docs/packs/billing', ws.writeToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'billing', deleted: true, retired: sections });
    expect(await jobs()).toEqual([]);
    expectError(await doc('billing:docs/invoices.md'), 404, 'not_found');
    await drainAll(t.sql, providers);
    const after = await search({ query: 'invoice numbering gapless finalisation' });
    expect(after.body.results.filter((r: { source: string }) => r.source !== 'fs')).toEqual([]);
    expect((await doc('docs/guide.md')).status).toBe(200);
    expect((await api.call('GET', '/api/v1/system/docs/packs', ws.readToken)).body.packs).toEqual([]);
    expectError(await api.call('DELETE', '/api/v1/system/docs/packs/billing', ws.writeToken), 404, 'not_found');
    expectError(await api.call('DELETE', '/api/v1/system/docs/packs/Not%20A%20Code', ws.writeToken), 400, 'validation_failed');
  });
});
