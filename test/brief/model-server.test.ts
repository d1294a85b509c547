// A team's own model server, end to end (docs/models.md): the providers from-config.ts builds
// from DOCO_EMBED_SERVER_* and DOCO_RERANK_SERVER_* against a loopback fake of such a server
// (test/helpers/fake-model-server.ts: an OpenAI-compatible /v1/embeddings and a Cohere/Jina
// /v1/rerank, answering with their own bag-of-letters vectors and word-overlap scores). Capture →
// drain → brief and search find the record through them; the drain's batches keep to the limit;
// a 503 is retried; vectors of another size are refused and a new size re-embeds everything; a
// server that is down or slow leaves the brief answering with a warning, never a 500.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief } from '../../src/brief/types.js';
import { loadConfig } from '../../src/config/environment.js';
import { requeueOutdatedChunks } from '../../src/indexing/index-sync.js';
import { makeSearchProviders, type SearchProviders } from '../../src/providers/from-config.js';
import { openAiCompatibleEmbedder } from '../../src/providers/openai-compatible-embedder.js';
import { rerankServerReranker } from '../../src/providers/rerank-server-reranker.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { FakeModelServer, serverError } from '../helpers/fake-model-server.js';
import { noWait } from '../helpers/retry.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let home: string;
let origin: string;
let providers: SearchProviders;
const fake = new FakeModelServer({ rerankPath: '/v1/rerank' });
const ids: Record<string, string> = {};
const BATCH = 2;
const REFUND = 'Refunds go back to the card that paid, never as store credit.';

/** What a team sets: the server's base URL for both, the model's name and size, a key, a small batch. */
const env = (extra: NodeJS.ProcessEnv = {}) => ({
  DOCO_HOME: home,
  DOCO_EMBED_SERVER_URL: origin,
  DOCO_EMBED_SERVER_MODEL: 'letters-26',
  DOCO_EMBED_SERVER_DIMENSIONS: '26',
  DOCO_EMBED_SERVER_API_KEY: 'sk-team-model',
  DOCO_EMBED_SERVER_BATCH_SIZE: String(BATCH),
  DOCO_RERANK_SERVER_URL: `${origin}/v1`,
  DOCO_RERANK_SERVER_MODEL: 'overlap-reranker',
  ...extra,
});

/** The configured embedder and reranker over an in-memory embedded index. */
async function fromConfig(extra: NodeJS.ProcessEnv = {}): Promise<SearchProviders> {
  const built = await makeSearchProviders(loadConfig(env(extra)), makeLog('silent'));
  return localProviders({ embedder: built.embedder, reranker: built.reranker });
}

async function capture(title: string, prose: string): Promise<string> {
  const res = await makeApp(t, undefined, providers).call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'docs',
    node_type: 'reference',
    title,
    prose,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.node.id;
}

async function brief(p: SearchProviders, body: Record<string, unknown>): Promise<Brief> {
  const res = await makeApp(t, undefined, p).call('POST', '/api/v1/brief', ws.readToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Brief;
}

const itemIds = (b: Brief) => Object.values(b.tiers).flatMap((items) => items.map((i) => i.id));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'models');
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-models-'));
  origin = await fake.start();
  providers = await fromConfig();
  const res = await makeApp(t, undefined, providers).call('POST', '/api/v1/collections', ws.writeToken, {
    slug: 'docs',
    template: 'documentation',
    goal: 'Reference',
  });
  expect(res.status).toBeLessThan(300);
  ids.refund = await capture('Refund runbook', REFUND);
  ids.deploy = await capture('Deploy days', 'Deploys go out on Wednesdays after the freeze lifts.');
  ids.dispute = await capture('Disputes handbook', 'A contested payment is frozen until the bank rules on it.');
  ids.oncall = await capture('On-call rota', 'Whoever holds the pager answers alerts within fifteen minutes.');
});
afterAll(async () => {
  await fake.stop().catch(() => {}); // one test stops it early
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

describe('embedding and reranking on a team model server', () => {
  it('the drain embeds every chunk on the server in batches no larger than the limit, under its identity', async () => {
    const report = await drainAll(t.sql, providers);
    expect(report.failedRecords).toBe(0);
    const batches = fake.to('/v1/embeddings');
    const chunkCount = batches.reduce((n, r) => n + r.body.input.length, 0);
    expect(chunkCount).toBe(report.chunksEmbedded);
    expect(chunkCount).toBeGreaterThan(BATCH);
    expect(Math.max(...batches.map((r) => r.body.input.length))).toBe(BATCH);
    for (const r of batches) {
      expect(r.headers.authorization).toBe('Bearer sk-team-model');
      expect(r.body.model).toBe('letters-26');
    }
    expect(providers.embedder.identity).toBe(`openai-compatible/${new URL(origin).host}/letters-26/26`);
    const embedders = await t.sql<{ embedder: string }[]>`select distinct embedder from doco.chunks where workspace_id = ${ws.id}`;
    expect(embedders.map((r) => r.embedder)).toEqual([providers.embedder.identity]);
    // The index holds the server's vectors: the record's own text finds it first by dense similarity.
    const [vector] = await providers.embedder.embed([`Refund runbook\n\n${REFUND}`], 'query');
    const { dense } = await providers.store.search({ tenant: ws.id, vector: vector!, text: '', limit: 4 });
    expect(dense[0]?.nodeId).toBe(ids.refund);
  });

  it('a brief embeds the ask and reranks on the server, and puts the record it asked about first', async () => {
    fake.seen.length = 0;
    const about = 'refunds back to the card or store credit';
    const b = await brief(providers, { about });
    expect(b.warnings).toEqual([]);
    expect(fake.to('/v1/embeddings').map((r) => r.body.input)).toEqual([[about]]);
    const reranks = fake.to('/v1/rerank');
    expect(reranks.length).toBeGreaterThan(0);
    expect(reranks[0]!.body).toMatchObject({ model: 'overlap-reranker', query: about });
    expect(reranks[0]!.body.documents.some((d: string) => d.includes(REFUND))).toBe(true);
    expect(itemIds(b)).toContain(ids.refund);
    expect(
      Object.values(b.tiers)
        .flat()
        .sort((x, y) => y.score - x.score)[0]?.id,
    ).toBe(ids.refund);
  });

  it('search embeds the query on the server and finds the record', async () => {
    fake.seen.length = 0;
    const res = await makeApp(t, undefined, providers).call('GET', '/api/v1/search?q=store%20credit%20refunds', ws.readToken);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results[0]?.id).toBe(ids.refund);
    expect(fake.to('/v1/embeddings').map((r) => r.body.input)).toEqual([['store credit refunds']]);
  });

  it('a 503 from the server is retried, and the brief answers as if nothing happened', async () => {
    fake.seen.length = 0;
    fake.replies.push(serverError(503), serverError(503));
    const b = await brief(providers, { about: 'refunds back to the card' });
    expect(b.warnings).toEqual([]);
    expect(fake.seen.slice(0, 2).every((r) => r.url === '/v1/embeddings' || r.url === '/v1/rerank')).toBe(true);
    expect(fake.seen.length).toBeGreaterThan(3); // two 503s, then the answers
    expect(itemIds(b)).toContain(ids.refund);
  });
});

describe('vectors of another size', () => {
  it('are refused by the drain with a message naming the value to set, and nothing is mixed', async () => {
    fake.dimensions = 20; // another model now answers under the same name
    try {
      const id = await capture('Refund limits', 'Refunds over $500 need an owner to approve them.');
      const report = await drainAll(t.sql, providers);
      expect(report.failedRecords).toBe(1);
      const [row] = await t.sql<{ last_error: string }[]>`select last_error from doco.outbox where node_id = ${id}`;
      expect(row?.last_error).toContain('answered 20-dimensional vectors for letters-26, but the index holds 26-dimensional ones');
      expect(row?.last_error).toContain('set DOCO_EMBED_SERVER_DIMENSIONS=20 and restart');
      // And a brief meanwhile: the vector retriever's warning, the other retrievers' answer.
      const b = await brief(providers, { about: 'refunds back to the card' });
      expect(b.warnings).toEqual([expect.stringMatching(/^vector retriever failed: embedding server .* answered 20-dimensional vectors/)]);
      expect(itemIds(b)).toContain(ids.refund);
    } finally {
      fake.dimensions = 26;
    }
  });

  it('a new size configured is a new identity: every record is queued and embedded again under it', async () => {
    fake.dimensions = 20;
    try {
      const resized = await fromConfig({ DOCO_EMBED_SERVER_DIMENSIONS: '20' });
      expect(resized.embedder.identity).toBe(`openai-compatible/${new URL(origin).host}/letters-26/20`);
      expect(await requeueOutdatedChunks(t.sql, resized.embedder)).toBeGreaterThan(0);
      const report = await drainAll(t.sql, resized);
      expect(report.failedRecords).toBe(0);
      const embedders = await t.sql<{ embedder: string }[]>`select distinct embedder from doco.chunks where workspace_id = ${ws.id}`;
      expect(embedders.map((r) => r.embedder)).toEqual([resized.embedder.identity]);
      const b = await brief(resized, { about: 'refunds back to the card' });
      expect(b.warnings).toEqual([]);
      expect(itemIds(b)).toContain(ids.refund);
    } finally {
      fake.dimensions = 26;
    }
  });
});

describe('a model server that is slow or down', () => {
  /** The server's clients with no waits between tries, so the test measures the brief, not the backoff. */
  const direct = (extra: { timeoutMs?: number } = {}): SearchProviders =>
    localProviders({
      embedder: openAiCompatibleEmbedder({
        url: `${origin}/v1/embeddings`,
        model: 'letters-26',
        dimensions: 26,
        retry: { ...noWait, maxAttempts: 2 },
        ...extra,
      }),
      reranker: rerankServerReranker({ url: `${origin}/v1/rerank`, retry: { ...noWait, maxAttempts: 2 }, ...extra }),
    });

  it('slower than the deadline: the brief answers with "cut by deadline" warnings', async () => {
    fake.seen.length = 0;
    fake.replies.push(...Array.from({ length: 8 }, () => 'hang' as const));
    const p = direct();
    const b = await brief(p, { about: 'refunds back to the card', deadline_ms: 1500 });
    expect(b.warnings).toContain('vector retriever cut by deadline');
    expect(b.warnings.every((w) => / cut by deadline$/.test(w))).toBe(true);
    expect(itemIds(b)).toContain(ids.refund); // full text still found it
    fake.replies.length = 0;
  });

  it('down: the brief still answers 200 from the other retrievers, each failure a warning naming the server', async () => {
    const p = direct();
    await fake.stop();
    const host = new URL(origin).host;
    const b = await brief(p, { about: 'refunds back to the card' });
    expect(b.warnings).toEqual([
      `vector retriever failed: embedding server ${host} embeddings failed: network error (ECONNREFUSED) after 2 attempts`,
      `rerank failed: rerank server ${host} rerank failed: network error (ECONNREFUSED) after 2 attempts`,
    ]);
    expect(itemIds(b)).toContain(ids.refund);
    // Search has no deadline to degrade against: it answers 503 naming the server, not a 500.
    const res = await makeApp(t, undefined, p).call('GET', '/api/v1/search?q=refunds', ws.readToken);
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'unavailable', message: expect.stringContaining(`embedding server ${host}`) });
  });
});
