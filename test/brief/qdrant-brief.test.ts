// The brief end to end on Qdrant: records captured over REST, drained by the real outbox drain
// into a loopback fake of Qdrant's REST API (test/helpers/fake-qdrant.ts, real filtering and
// scoring), then POST /brief and GET /search answered with vector and BM25 hits from Qdrant —
// always scoped to the asking workspace's tenant — and a retired record's points removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { localEmbedder } from '../../src/providers/local-embedder.js';
import { qdrantCollectionName, qdrantStore } from '../../src/providers/vector/qdrant.js';
import type { SearchProviders } from '../../src/providers/from-config.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { FakeQdrant, type FakeQdrantRequest } from '../helpers/fake-qdrant.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let fake: FakeQdrant;
let fakeUrl: string;
let providers: SearchProviders;
let api: ReturnType<typeof makeApp>;
let alpha: TestWorkspace;
let beta: TestWorkspace;
let collection: string;
const a: Record<string, string> = {};
const b: Record<string, string> = {};

const ASK = 'Add partial refunds to the billing page';
// Misspelt past full text and `because` matching: only the vector seed can bring records in.
const FUZZY_ASK = 'chargebakk disputz evvidense recieptt';
const LONG = Array.from(
  { length: 24 },
  (_, i) =>
    `Clause ${i}: chargeback disputes are answered with the receipt, the delivery proof and the customer's messages, kept for eighteen months.`,
).join('\n\n');

const post = async (ws: TestWorkspace, path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const capture = async (ws: TestWorkspace, body: Record<string, unknown>) => (await post(ws, '/capture', body)).node.id as string;
const ok = async (ws: TestWorkspace, method: string, path: string, body?: unknown) => {
  const res = await api.call(method, path, ws.readToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const itemsOf = (brief: Brief): Item[] => Object.values(brief.tiers).flat();
const points = () => [...fake.collections.get(collection)!.points.values()];
const pointsOf = (nodeId: string) => points().filter((p) => p.payload.node_id === nodeId).length;
const queriesSince = (n: number): FakeQdrantRequest[] => fake.seen('POST', '/points/query').slice(n);
const tenantOf = (req: FakeQdrantRequest) => {
  const must = (req.body as { filter?: { must?: { key: string; match: { value?: string } }[] } }).filter?.must ?? [];
  return must.find((c) => c.key === 'tenant')?.match.value;
};

beforeAll(async () => {
  fake = new FakeQdrant();
  fakeUrl = await fake.start();
  const embedder = localEmbedder();
  const store = qdrantStore({ url: fakeUrl });
  await store.init(embedder.identity, embedder.dimensions);
  collection = qdrantCollectionName('doco', embedder.identity);
  providers = localProviders({ embedder, store });
  t = await createTestDb();
  alpha = await makeWorkspace(t, 'alpha');
  beta = await makeWorkspace(t, 'beta');
  api = makeApp(t, undefined, providers);

  await post(alpha, '/collections', { slug: 'billing', template: 'product-decisions', goal: 'How billing works' });
  await post(alpha, '/collections', { slug: 'docs', template: 'documentation', goal: 'Reference' });
  a.rule = await capture(alpha, {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Refunds over $500 need an owner',
    prose: 'Any refund over $500 needs the approval of an account owner.',
  });
  a.decision = await capture(alpha, {
    collection: 'billing',
    node_type: 'decision',
    title: 'Refunds go to the paying card',
    prose: 'Refunds go back to the card that paid, never as store credit. See app/routes/billing.tsx.',
  });
  a.chargebacks = await capture(alpha, { collection: 'docs', node_type: 'reference', title: 'Chargeback evidence', prose: LONG });

  // The same words in another workspace: a leak through any layer would show.
  await post(beta, '/collections', { slug: 'billing', template: 'product-decisions', goal: 'How billing works' });
  await post(beta, '/collections', { slug: 'docs', template: 'documentation', goal: 'Reference' });
  b.decision = await capture(beta, {
    collection: 'billing',
    node_type: 'decision',
    title: 'Refunds become store credit',
    prose: 'Partial refunds become store credit on the billing page. See app/routes/billing.tsx.',
  });
  b.chargebacks = await capture(beta, {
    collection: 'docs',
    node_type: 'reference',
    title: 'Chargeback evidence (beta)',
    prose: 'Chargeback disputes are answered with the receipt and the delivery proof.',
  });

  const report = await drainAll(t.sql, providers);
  expect(report.failedRecords).toBe(0);
});

afterAll(async () => {
  await t?.drop();
  await fake?.stop();
});

describe('the brief on Qdrant', () => {
  it('the drain wrote every chunk of both workspaces into Qdrant, each under its tenant', async () => {
    const chunks = await t.sql<
      { id: string; workspace_id: string; node_id: string }[]
    >`select id::text, workspace_id, node_id from doco.chunks`;
    expect(chunks.length).toBeGreaterThan(Object.keys(a).length + Object.keys(b).length); // the long reference has several
    expect(
      points()
        .map((p) => String(p.id))
        .sort(),
    ).toEqual(chunks.map((c) => c.id).sort());
    for (const c of chunks)
      expect(points().find((p) => String(p.id) === c.id)!.payload).toMatchObject({ tenant: c.workspace_id, node_id: c.node_id });
    expect(new Set(points().map((p) => p.payload.tenant))).toEqual(new Set([alpha.id, beta.id]));
    expect(pointsOf(a.chargebacks!)).toBeGreaterThan(1);
    expect((await t.sql`select count(*)::int as n from doco.outbox`)[0]!.n).toBe(0);
  });

  it('POST /brief finds the records, its dense and BM25 queries filtered by the workspace tenant', async () => {
    const before = fake.seen('POST', '/points/query').length;
    const brief: Brief = await ok(alpha, 'POST', '/api/v1/brief', { about: ASK, touching: ['app/routes/billing.tsx'] });
    expect(brief.warnings).toEqual([]);
    expect(brief.tiers.must_obey.map((i) => i.id)).toContain(a.rule);
    expect(brief.tiers.already_decided.find((i) => i.id === a.decision)?.because).toBe('touches app/routes/billing.tsx');

    const queries = queriesSince(before);
    expect(queries.map((q) => (q.body as { using: string }).using).sort()).toEqual(['bm25', 'dense']);
    for (const q of queries) expect(tenantOf(q)).toBe(alpha.id);

    // Replayed against the fake, the recorded queries answer with alpha's points only, though
    // beta's points hold the same words.
    for (const q of queries) {
      const res = await fetch(`${fakeUrl}${q.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(q.body),
      });
      const hits = ((await res.json()) as { result: { points: { payload: { node_id: string } }[] } }).result.points.map(
        (p) => p.payload.node_id,
      );
      expect(hits.length).toBeGreaterThan(0);
      for (const id of hits) expect(Object.values(a)).toContain(id);
    }
    expect(await t.sql`select 1 from doco.briefs where id = ${brief.brief_id} and workspace_id = ${alpha.id}`).toHaveLength(1);
  });

  it('a record only the vector seed can reach is in the brief from Qdrant, and gone when Qdrant fails', async () => {
    const found: Brief = await ok(alpha, 'POST', '/api/v1/brief', { about: FUZZY_ASK });
    expect(found.warnings).toEqual([]);
    expect(itemsOf(found).find((i) => i.id === a.chargebacks)?.because).toBe('similar to the ask');

    fake.failWith = (req) => (req.path.endsWith('/points/query') ? 500 : undefined);
    try {
      const cut: Brief = await ok(alpha, 'POST', '/api/v1/brief', { about: FUZZY_ASK });
      expect(cut.warnings.join('\n')).toMatch(/vector retriever failed: Qdrant .*HTTP 500/);
      expect(itemsOf(cut).map((i) => i.id)).not.toContain(a.chargebacks);
    } finally {
      fake.failWith = () => undefined;
    }
  });

  it("GET /search returns the records from Qdrant, one per record, and never another workspace's", async () => {
    const before = fake.seen('POST', '/points/query').length;
    const { results } = await ok(alpha, 'GET', `/api/v1/search?q=${encodeURIComponent('chargeback disputes refunds')}&limit=20`);
    const ids = results.map((r: Item) => r.id);
    expect(ids).toEqual(expect.arrayContaining([a.chargebacks, a.decision, a.rule]));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of Object.values(b)) expect(ids).not.toContain(id);
    const queries = queriesSince(before);
    expect(queries.length).toBeGreaterThanOrEqual(2);
    for (const q of queries) expect(tenantOf(q)).toBe(alpha.id);

    // Every word misspelt: Qdrant's dense hit has a cosine of about 0.16, under the search floor's
    // 0.2 for a hit sharing no word with the query (docs/search.md), so search says nothing
    // matched well; the brief, which has no floor, finds it through the same Qdrant query (above).
    const fuzzy = await ok(alpha, 'GET', `/api/v1/search?q=${encodeURIComponent(FUZZY_ASK)}`);
    expect(fuzzy).toMatchObject({ results: [], nothing_matched_well: true });
    const milder = await ok(alpha, 'GET', `/api/v1/search?q=${encodeURIComponent('chargeback disputz')}`);
    expect(milder.results.map((r: Item) => r.id)).toContain(a.chargebacks);
  });

  it("beta's brief and search see beta's records only, through beta's tenant", async () => {
    const before = fake.seen('POST', '/points/query').length;
    const brief: Brief = await ok(beta, 'POST', '/api/v1/brief', { about: ASK, touching: ['app/routes/billing.tsx'] });
    const briefIds = itemsOf(brief).map((i) => i.id);
    expect(briefIds).toContain(b.decision);
    const { results } = await ok(beta, 'GET', `/api/v1/search?q=${encodeURIComponent('chargeback disputes refunds')}&limit=20`);
    const searchIds = results.map((r: Item) => r.id);
    expect(searchIds).toEqual(expect.arrayContaining([b.decision, b.chargebacks]));
    for (const id of Object.values(a)) {
      expect(briefIds).not.toContain(id);
      expect(searchIds).not.toContain(id);
    }
    const queries = queriesSince(before);
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const q of queries) expect(tenantOf(q)).toBe(beta.id);
  });

  it('retiring a record and draining removes its points from Qdrant', async () => {
    const total = points().length;
    const own = pointsOf(a.chargebacks!);
    expect(own).toBeGreaterThan(1);
    await post(alpha, '/changeset', { operations: [{ op: 'retire', target: a.chargebacks }] });
    const deletesBefore = fake.seen('POST', '/points/delete').length;
    const report = await drainAll(t.sql, providers);
    expect(report).toMatchObject({ records: 1, chunksRemoved: own, failedRecords: 0 });
    expect(fake.seen('POST', '/points/delete').length).toBeGreaterThan(deletesBefore);
    expect(points().length).toBe(total - own);
    expect(pointsOf(a.chargebacks!)).toBe(0);
    expect(await providers.store.count()).toBe(total - own);
    expect(await t.sql`select 1 from doco.chunks where node_id = ${a.chargebacks!}`).toHaveLength(0);

    const { results } = await ok(alpha, 'GET', `/api/v1/search?q=${encodeURIComponent('chargeback disputes')}&limit=20`);
    expect(results.map((r: Item) => r.id)).not.toContain(a.chargebacks);
    const brief: Brief = await ok(alpha, 'POST', '/api/v1/brief', { about: FUZZY_ASK });
    expect(itemsOf(brief).map((i) => i.id)).not.toContain(a.chargebacks);
    expect(brief.warnings).toEqual([]);
  });
});
