// The Qdrant vector store through the real @qdrant/js-client-rest, against a loopback fake of
// Qdrant's REST API (test/helpers/fake-qdrant.ts) that filters and scores for real.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QdrantStoreError, qdrantCollectionName, qdrantStore } from '../../../src/providers/vector/qdrant.js';
import { sparseDocumentVector, termIndex } from '../../../src/text/tokenize.js';
import type { ChunkPoint, VectorStore } from '../../../src/providers/vector/port.js';
import { FakeQdrant } from '../../helpers/fake-qdrant.js';

const IDENTITY = 'voyage/voyage-3.5/1024';
const COLLECTION = 'doco__voyage_voyage-3.5_1024';
const DIMS = 4;

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
function vec(...xs: number[]): Float32Array {
  const norm = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / norm);
}
function chunk(n: number, over: Partial<ChunkPoint> = {}): ChunkPoint {
  return {
    id: uuid(n),
    tenant: 'ws_a',
    collectionId: 'col_1',
    nodeId: `rule_${n}`,
    nodeType: 'rule',
    shape: '',
    sourceKind: 'record',
    text: `chunk number ${n}`,
    vector: vec(1, 0, 0, 0),
    ...over,
  };
}
const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

let fake: FakeQdrant;
let url: string;
let store: VectorStore;

beforeEach(async () => {
  fake = new FakeQdrant();
  url = await fake.start();
  store = qdrantStore({ url });
});
afterEach(async () => {
  await store.close();
  await fake.stop();
});

describe('init', () => {
  it('creates one collection per embedder with the dense and BM25 vectors and the payload indexes', async () => {
    await store.init(IDENTITY, DIMS);
    expect(qdrantCollectionName('doco', IDENTITY)).toBe(COLLECTION);
    expect([...fake.collections.keys()]).toEqual([COLLECTION]);
    const c = fake.collections.get(COLLECTION)!;
    expect(c.config.vectors).toEqual({ dense: { size: 4, distance: 'Cosine', on_disk: true, hnsw_config: { m: 32, ef_construct: 200 } } });
    expect(c.config.sparse_vectors).toEqual({ bm25: { modifier: 'idf' } });
    expect(Object.fromEntries(c.indexes)).toEqual({
      tenant: { type: 'keyword', is_tenant: true },
      collection_id: 'keyword',
      node_type: 'keyword',
      shape: 'keyword',
      source_kind: 'keyword',
      node_id: 'keyword',
    });
    expect(fake.seen('PUT', '/index').map((r) => r.query.get('wait'))).toEqual(Array(6).fill('true'));
  });

  it('is idempotent: a second init (or a second process) reuses the collection and writes nothing', async () => {
    await store.init(IDENTITY, DIMS);
    await store.upsert([chunk(1)]);
    const writesBefore = fake.requests.filter((r) => r.method !== 'GET').length;
    await store.init(IDENTITY, DIMS);
    await qdrantStore({ url }).init(IDENTITY, DIMS);
    expect(fake.requests.filter((r) => r.method !== 'GET').length).toBe(writesBefore);
    expect(await store.count()).toBe(1);
  });

  it('adds only the payload indexes an existing collection lacks', async () => {
    await store.init(IDENTITY, DIMS);
    fake.collections.get(COLLECTION)!.indexes.delete('shape');
    const before = fake.seen('PUT', '/index').length;
    await qdrantStore({ url }).init(IDENTITY, DIMS);
    expect(
      fake
        .seen('PUT', '/index')
        .slice(before)
        .map((r) => (r.body as { field_name: string }).field_name),
    ).toEqual(['shape']);
  });

  it('names collections by prefix and identity, so embedders never share one', async () => {
    await qdrantStore({ url, collectionPrefix: 'staging' }).init('local-hash-v1/512', 512);
    await store.init(IDENTITY, DIMS);
    expect([...fake.collections.keys()].sort()).toEqual([COLLECTION, 'staging__local-hash-v1_512']);
  });

  it('refuses an existing collection whose dense size differs, naming both sizes', async () => {
    await store.init(IDENTITY, DIMS);
    const other = qdrantStore({ url });
    const err = await other.init(IDENTITY, 8).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QdrantStoreError);
    expect((err as QdrantStoreError).operation).toBe('init');
    expect((err as Error).message).toMatch(
      /collection "doco__voyage_voyage-3\.5_1024".*holds 4-dimensional vectors but the embedder makes 8/,
    );
    await expect(other.count()).rejects.toThrow(/not initialised/);
  });
});

describe('upsert and search', () => {
  beforeEach(() => store.init(IDENTITY, DIMS));

  it('stores each chunk under its id with its payload and BM25 vector, waiting for Qdrant', async () => {
    const p = chunk(1, {
      text: 'Refunds\n\nRefunds are processed nightly',
      header: 'Refunds',
      shape: 'docSection',
      sourceKind: 'doc',
      nodeType: 'reference',
    });
    await store.upsert([p]);
    const [req] = fake.seen('PUT', '/points');
    expect(req!.query.get('wait')).toBe('true');
    const stored = fake.collections.get(COLLECTION)!.points.get(p.id)!;
    expect(stored.payload).toEqual({
      tenant: 'ws_a',
      collection_id: 'col_1',
      node_id: 'rule_1',
      node_type: 'reference',
      shape: 'docSection',
      source_kind: 'doc',
    });
    // Header terms weighed as the embedded index weighs them.
    expect(stored.sparse.get('bm25')).toEqual(sparseDocumentVector(p.text, 'Refunds'));
    expect(stored.sparse.get('bm25')).not.toEqual(sparseDocumentVector(p.text));
    expect(stored.dense.get('dense')).toEqual(Array.from(p.vector));
  });

  it('returns dense hits nearest first, with the node id from the payload', async () => {
    await store.upsert([
      chunk(1, { vector: vec(0, 1, 0, 0) }),
      chunk(2, { vector: vec(1, 0.1, 0, 0) }),
      chunk(3, { vector: vec(1, 1, 0, 0) }),
    ]);
    const { dense } = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'chunk', limit: 10 });
    expect(ids(dense)).toEqual([uuid(2), uuid(3), uuid(1)]);
    expect(dense.map((h) => h.nodeId)).toEqual(['rule_2', 'rule_3', 'rule_1']);
    expect(dense[0]!.score).toBeGreaterThan(dense[1]!.score);
    expect(dense[1]!.score).toBeGreaterThan(dense[2]!.score);
    const limited = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'chunk', limit: 2 });
    expect(ids(limited.dense)).toEqual([uuid(2), uuid(3)]);
  });

  it('ranks the chunk holding a rare query term first in BM25, whatever the dense order', async () => {
    const texts = [
      'billing billing billing invoices for the billing team',
      'billing exports run monthly',
      'billing dashboards show revenue',
      'the retry uses an idempotency key',
      'unrelated onboarding checklist',
    ];
    // Dense favours chunk 1: only IDF can lift chunk 4 above the billing-heavy chunk.
    await store.upsert(texts.map((text, i) => chunk(i + 1, { text, vector: i === 0 ? vec(1, 0, 0, 0) : vec(0, 1, 0, 0) })));
    const { dense, sparse } = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'billing idempotency', limit: 10 });
    expect(dense[0]!.id).toBe(uuid(1));
    expect(ids(sparse)[0]).toBe(uuid(4));
    expect(ids(sparse).sort()).toEqual([uuid(1), uuid(2), uuid(3), uuid(4)]); // no shared term, no hit
    const doc = sparseDocumentVector(texts[3]!);
    const docWeight = doc.values[doc.indices.indexOf(termIndex('idempotency'))]!;
    // Qdrant's IDF for a term in 1 of 5 points: ln((5 − 1 + 0.5) / (1 + 0.5) + 1) = ln 4.
    expect(sparse[0]!.score).toBeCloseTo(Math.log(4) * docWeight, 5);
  });

  it('asks only for BM25 hits when the query is sparse-only', async () => {
    await store.upsert([chunk(1, { text: 'billing exports run monthly' })]);
    const before = fake.seen('POST', '/points/query').length;
    const { dense, sparse } = await store.search({ tenant: 'ws_a', vector: vec(0, 0, 0, 0), text: 'billing', limit: 5, sparseOnly: true });
    expect(dense).toEqual([]);
    expect(ids(sparse)).toEqual([uuid(1)]);
    const sent = fake
      .seen('POST', '/points/query')
      .slice(before)
      .map((r) => (r.body as { using: string }).using);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toBe('dense');
  });

  it('skips the BM25 call when the query has no terms', async () => {
    await store.upsert([chunk(1)]);
    const before = fake.seen('POST', '/points/query').length;
    const { dense, sparse } = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'the and of', limit: 5 });
    expect(ids(dense)).toEqual([uuid(1)]);
    expect(sparse).toEqual([]);
    expect(fake.seen('POST', '/points/query').length - before).toBe(1);
  });

  it("never returns another tenant's points, even when they are closer", async () => {
    await store.upsert([
      chunk(1, { tenant: 'ws_a', vector: vec(0, 0, 1, 1), text: 'deploy freeze policy' }),
      chunk(2, { tenant: 'ws_b', vector: vec(1, 0, 0, 0), text: 'deploy freeze policy freeze' }),
    ]);
    const a = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'deploy freeze', limit: 10 });
    expect(ids(a.dense)).toEqual([uuid(1)]);
    expect(ids(a.sparse)).toEqual([uuid(1)]);
    const b = await store.search({ tenant: 'ws_b', vector: vec(1, 0, 0, 0), text: 'deploy freeze', limit: 10 });
    expect(ids(b.dense)).toEqual([uuid(2)]);
    // Every query, dense and BM25 alike, carried the tenant condition first.
    expect(fake.seen('POST', '/points/query').map((r) => JSON.stringify((r.body as { filter: unknown }).filter))).toEqual([
      ...Array(2).fill('{"must":[{"key":"tenant","match":{"value":"ws_a"}}]}'),
      ...Array(2).fill('{"must":[{"key":"tenant","match":{"value":"ws_b"}}]}'),
    ]);
  });

  it('filters by collection, node type, shape and source kind', async () => {
    await store.upsert([
      chunk(1, { collectionId: 'col_1', nodeType: 'rule', shape: '', sourceKind: 'record', text: 'cache policy' }),
      chunk(2, { collectionId: 'col_2', nodeType: 'decision', shape: '', sourceKind: 'record', text: 'cache policy' }),
      chunk(3, { collectionId: 'col_2', nodeType: 'reference', shape: 'docSection', sourceKind: 'doc', text: 'cache policy' }),
      chunk(4, {
        collectionId: 'col_3',
        nodeType: 'reference',
        shape: 'architecturePrinciple',
        sourceKind: 'github',
        text: 'cache policy',
      }),
    ]);
    const search = async (filter: object) => {
      const { dense, sparse } = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'cache', limit: 10, filter });
      expect(ids(sparse).sort()).toEqual(ids(dense).sort());
      return ids(dense).sort();
    };
    expect(await search({ collectionIds: ['col_2'] })).toEqual([uuid(2), uuid(3)]);
    expect(await search({ nodeTypes: ['rule', 'decision'] })).toEqual([uuid(1), uuid(2)]);
    expect(await search({ shapes: ['docSection', 'architecturePrinciple'] })).toEqual([uuid(3), uuid(4)]);
    expect(await search({ sourceKinds: ['github'] })).toEqual([uuid(4)]);
    expect(await search({ collectionIds: ['col_2', 'col_3'], nodeTypes: ['reference'], sourceKinds: ['doc'] })).toEqual([uuid(3)]);
    const before = fake.requests.length;
    expect(await search({ nodeTypes: [] })).toEqual([]); // an empty list matches nothing, without asking Qdrant
    expect(fake.requests.length).toBe(before);
  });

  it('removes points by id and counts exactly', async () => {
    await store.upsert([chunk(1), chunk(2), chunk(3)]);
    expect(await store.count()).toBe(3);
    await store.remove([uuid(1), uuid(3)]);
    expect(fake.seen('POST', '/points/delete').map((r) => [r.query.get('wait'), r.body])).toEqual([
      ['true', { points: [uuid(1), uuid(3)] }],
    ]);
    expect(await store.count()).toBe(1);
    const { dense, sparse } = await store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'chunk', limit: 10 });
    expect([ids(dense), ids(sparse)]).toEqual([[uuid(2)], [uuid(2)]]);
  });

  it('upserts in batches of at most 256 points', async () => {
    await store.upsert(Array.from({ length: 600 }, (_, i) => chunk(i + 1)));
    expect(fake.seen('PUT', '/points').map((r) => (r.body as { points: unknown[] }).points.length)).toEqual([256, 256, 88]);
    expect(await store.count()).toBe(600);
  });

  it('refuses a vector of the wrong size before sending it', async () => {
    await expect(store.upsert([chunk(1, { vector: new Float32Array(3) })])).rejects.toThrow(
      /chunk .* has 3 dimensions, collection .* holds 4/,
    );
    expect(fake.seen('PUT', '/points')).toEqual([]);
  });
});

describe('failures', () => {
  it('surfaces a Qdrant 500 as an error naming the operation', async () => {
    await store.init(IDENTITY, DIMS);
    fake.failWith = (r) => (r.path.endsWith('/points') ? 500 : undefined);
    const err = await store.upsert([chunk(1)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QdrantStoreError);
    expect((err as QdrantStoreError).operation).toBe('upsert');
    expect((err as Error).message).toBe(
      `Qdrant upsert on collection "${COLLECTION}" failed: HTTP 500: Service internal error: injected by the test`,
    );
    fake.failWith = (r) => ((r.body as { using?: string } | undefined)?.using === 'bm25' ? 500 : undefined);
    await expect(store.search({ tenant: 'ws_a', vector: vec(1, 0, 0, 0), text: 'chunk', limit: 3 })).rejects.toThrow(
      /^Qdrant BM25 search on collection .* HTTP 500/,
    );
    fake.failWith = (r) => (r.path.endsWith('/count') ? 503 : undefined);
    await expect(store.count()).rejects.toThrow(/^Qdrant count .* HTTP 503/);
    fake.failWith = () => 500;
    await expect(qdrantStore({ url }).init(IDENTITY, DIMS)).rejects.toThrow(/^Qdrant init: reading collection .* HTTP 500/);
  });

  it('refuses calls before init', async () => {
    await expect(store.upsert([chunk(1)])).rejects.toThrow('Qdrant upsert: the store is not initialised (call init first)');
    expect(fake.requests).toEqual([]);
  });

  it('sends the API key, and a wrong key fails init', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {}); // the client warns about a key over plain http
    const guarded = new FakeQdrant({ apiKey: 'sekret' });
    const guardedUrl = await guarded.start();
    try {
      await qdrantStore({ url: guardedUrl, apiKey: 'sekret' }).init(IDENTITY, DIMS);
      expect(guarded.collections.has(COLLECTION)).toBe(true);
      await expect(qdrantStore({ url: guardedUrl, apiKey: 'wrong' }).init(IDENTITY, DIMS)).rejects.toThrow(
        /HTTP 401: Must provide an API key/,
      );
    } finally {
      warn.mockRestore();
      await guarded.stop();
    }
  });

  it('the fake refuses malformed requests the way Qdrant does', async () => {
    await store.init(IDENTITY, DIMS);
    const put = (body: unknown) =>
      fetch(`${url}/collections/${COLLECTION}/points?wait=true`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await put({ points: [{ id: uuid(1), vector: { dense: [1, 0, 0] } }] });
    expect([bad.status, await bad.json()]).toMatchObject([
      400,
      { status: { error: 'Wrong input: Vector dimension error: expected dim: 4, got 3' } },
    ]);
    expect((await put({ points: [{ id: 'not-a-uuid', vector: { dense: [1, 0, 0, 0] } }] })).status).toBe(400);
    expect((await put({ points: [{ id: uuid(1), vector: { bm25: { indices: [1, 1], values: [1, 2] } } }] })).status).toBe(400);
    expect((await put({ points: [{ id: uuid(1), vectors: { dense: [1, 0, 0, 0] } }] })).status).toBe(400);
    const missing = await fetch(`${url}/collections/nope`);
    expect([missing.status, await missing.json()]).toMatchObject([
      404,
      { status: { error: "Not found: Collection `nope` doesn't exist!" } },
    ]);
    expect(await store.count()).toBe(0);
  });
});
