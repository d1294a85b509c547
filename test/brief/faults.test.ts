// The brief under faults (docs/brief.md, step 7): a step that is cut or a provider that fails is a
// warning naming it, never a 500, and the brief still answers with what the other steps found.
// Vector store down or stuck, a reranker or synthesis slower than the deadline, and hosted
// providers (Voyage rerank, Anthropic synthesis) that keep failing behind their retries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStoredBrief } from '../../src/brief/stored.js';
import type { Brief } from '../../src/brief/types.js';
import { anthropicSynthesizer } from '../../src/providers/anthropic-synthesizer.js';
import type { Reranker } from '../../src/providers/reranker.js';
import type { Synthesizer } from '../../src/providers/synthesizer.js';
import { voyageReranker } from '../../src/providers/voyage-reranker.js';
import type { SearchProviders } from '../../src/providers/from-config.js';
import { embeddedStore } from '../../src/providers/vector/embedded/store.js';
import { qdrantStore } from '../../src/providers/vector/qdrant.js';
import { pointsOf, type StoredChunk } from '../../src/indexing/stored-chunk.js';
import type { VectorStore } from '../../src/providers/vector/port.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { FakeQdrant } from '../helpers/fake-qdrant.js';
import { anthropicError, fakeAnthropicMessages, fakeVoyageRerank, voyageError } from '../helpers/fake-providers.js';
import { noWait } from '../helpers/retry.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
const base = localProviders();
const ids: Record<string, string> = {};
const refs: string[] = [];
const ASK = { about: 'How should the billing page handle refunds and a chargeback?', touching: ['app/routes/billing.tsx'], since: '' };

/** The embedded defaults over the same index, with some ports swapped. */
const withPorts = (ports: Partial<SearchProviders>): SearchProviders => ({ ...base, ...ports });

async function brief(providers: SearchProviders, extra: Record<string, unknown> = {}): Promise<Brief> {
  const api = makeApp(t, undefined, providers);
  const res = await api.call('POST', '/api/v1/brief', ws.readToken, { ...ASK, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Brief;
}
const allItems = (b: Brief) => Object.values(b.tiers).flat();
const allIds = (b: Brief) => allItems(b).map((i) => i.id);
const tierOrder = (b: Brief) => Object.fromEntries(Object.entries(b.tiers).map(([tier, items]) => [tier, items.map((i) => i.id)]));

/** A promise that settles only when the step's signal fires, as a well-behaved slow provider does. */
function untilAborted(signal: AbortSignal | undefined, aborted: AbortSignal[]): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return; // every step hands its work a signal; without one this never settles
    signal.addEventListener(
      'abort',
      () => {
        aborted.push(signal);
        reject(new DOMException('aborted', 'AbortError'));
      },
      { once: true },
    );
  });
}

/** The records the other retrievers must still find when one fails. */
function expectOtherRetrieversFound(b: Brief) {
  const byId = new Map(allItems(b).map((i) => [i.id, i]));
  // Standing orders and the exact touch match.
  expect(byId.get(ids.rule!)?.because).toBe('standing rule');
  expect(byId.get(ids.touched!)?.because).toBe('touches app/routes/billing.tsx');
  // Only the glossary names the disputes handbook for this ask.
  expect(byId.get(ids.disputes!)?.because).toBe("defines the glossary term 'chargeback'");
  // No touch, edge, glossary term or constitution brings these: full text found them.
  for (const id of refs) expect(byId.has(id), id).toBe(true);
}

const post = async (path: string, body: unknown) => {
  const res = await makeApp(t, undefined, base).call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'faults');
  await post('/collections', { slug: 'money', template: 'product-decisions', goal: 'How the shop handles money' });
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'Reference' });
  await post('/collections', { slug: 'work', template: 'backlog', goal: 'Work in flight' });
  // Written before `since`: these are background, the rest is in motion.
  for (let i = 0; i < 5; i++) {
    refs.push(
      (
        await post('/capture', {
          collection: 'docs',
          node_type: 'reference',
          title: `Refund runbook ${i}`,
          prose: `Step ${i} of issuing refunds by hand${' when the gateway is down'.repeat(i)}.`,
        })
      ).node.id,
    );
  }
  const [cutoff] = await t.sql<{ at: Date }[]>`select clock_timestamp() as at`;
  ASK.since = cutoff!.at.toISOString();
  ids.rule = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: "Refunds over $500 need an owner's approval",
      prose: "Refunds over $500 need an owner's approval before they are issued.",
    })
  ).node.id;
  ids.rule2 = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Money moves are logged',
      prose: 'Every movement of customer money is written to the ledger.',
    })
  ).node.id;
  ids.decision = (
    await post('/capture', {
      collection: 'money',
      node_type: 'decision',
      title: 'Refunds go back to the card',
      prose: 'Refunds go back to the card that paid, never as store credit.',
    })
  ).node.id;
  ids.touched = (
    await post('/capture', {
      collection: 'work',
      node_type: 'action',
      title: 'Move the layout',
      prose: 'Move app/routes/billing.tsx onto the new layout.',
    })
  ).node.id;
  ids.disputes = (
    await post('/capture', {
      collection: 'docs',
      node_type: 'reference',
      title: 'Disputes handbook',
      prose: 'When a cardholder contests a payment with their bank, the amount is frozen until the bank rules.',
    })
  ).node.id;
  await t.sql`insert into doco.glossary (id, workspace_id, term, definition, node_ids)
              values ('glossary_chargeback', ${ws.id}, 'chargeback', 'A payment the bank takes back on a dispute.', ${[ids.disputes!]})`;
  await drainAll(t.sql, base);
});
afterAll(async () => t.drop());

describe('a vector store that is down or stuck', () => {
  it('unreachable Qdrant: 200 from full text, touches and glossary, with a warning naming the vector retriever', async () => {
    const qdrant = new FakeQdrant();
    const store = qdrantStore({ url: await qdrant.start(), collectionPrefix: 'faults' });
    await store.init(base.embedder.identity, base.embedder.dimensions);
    await qdrant.stop(); // Qdrant goes away after start-up: its port is closed now
    const b = await brief(withPorts({ store }), { deadline_ms: 5000 });
    expect(b.warnings).toEqual([
      expect.stringMatching(/^vector retriever failed: Qdrant (dense|BM25) search on collection "faults__[^"]+" failed/),
    ]);
    expectOtherRetrieversFound(b);
    // The brief was stored with its warning, like any other.
    expect((await getStoredBrief(t.sql, ws.id, b.brief_id)).brief.warnings).toEqual(b.warnings);
  });

  it('a store whose search never answers is cut by the deadline and the brief answers without it', async () => {
    const release: (() => void)[] = [];
    const stuck: VectorStore = {
      ...base.store,
      search: () => new Promise((resolve) => release.push(() => resolve({ dense: [], sparse: [] }))),
    };
    try {
      const b = await brief(withPorts({ store: stuck }), { deadline_ms: 3000 });
      expect(release).toHaveLength(1); // the search was asked, and was still pending when the brief answered
      expect(b.warnings).toEqual(['vector retriever cut by deadline']);
      expectOtherRetrieversFound(b);
    } finally {
      release.forEach((r) => r());
    }
  });
});

describe('embedded scan workers that fail', () => {
  it('a worker that dies mid-scan: a warning naming the scan workers, and the same brief from a scan in the main thread', async () => {
    // Says it is ready, then exits on its first scan.
    const dying = `import('node:worker_threads').then(({ parentPort }) => { parentPort.on('message', () => process.exit(7)); parentPort.postMessage({ ready: true }); });`;
    const store = embeddedStore({ scanThreads: 2, minScanRows: 0, scanWorkerSource: dying });
    try {
      await store.init(base.embedder.identity, base.embedder.dimensions);
      const chunks = await t.sql<StoredChunk[]>`
        select id::text, workspace_id, collection_id, node_id, node_type, shape, source_kind, doco.chunk_embed_input(c) as embed_input from doco.chunks c where embedder = ${base.embedder.identity} order by seq`;
      await store.upsert(await pointsOf(base.embedder, chunks));
      await store.warmUp();
      const b = await brief(withPorts({ store }));
      expect(b.warnings).toEqual(['dense scan workers: scan worker exited (code 7); scanned in the main thread instead']);
      expect(tierOrder(b)).toEqual(tierOrder(await brief(base)));
    } finally {
      await store.close();
    }
  });
});

describe('rerank and synthesis against the deadline', () => {
  // Scores nothing apart: relevance is then the fused score alone, as when the rerank is cut.
  const flat: Reranker = { name: 'flat', score: async (_q, c) => c.map(() => 0) };
  const reverse: Reranker = { name: 'reverse', score: async (_q, c) => c.map((_, i) => i) };

  it('a reranker slower than the deadline: "rerank cut by deadline", items in fused order', async () => {
    const fused = await brief(withPorts({ reranker: flat }));
    expect(fused.warnings).toEqual([]);
    expect(allItems(fused).length).toBeGreaterThanOrEqual(3);
    // A reranker that does its job changes the order, so the comparison below can tell.
    expect(tierOrder(await brief(withPorts({ reranker: reverse })))).not.toEqual(tierOrder(fused));

    const aborted: AbortSignal[] = [];
    const slow: Reranker = { name: 'slow', score: (_q, _c, signal) => untilAborted(signal, aborted) };
    const b = await brief(withPorts({ reranker: slow }), { deadline_ms: 3000 });
    expect(b.warnings).toEqual(['rerank cut by deadline']);
    expect(tierOrder(b)).toEqual(tierOrder(fused));
    expect(aborted.length).toBeGreaterThan(0); // the reranker was told to stop
    expect(b.synthesis.text).not.toBe(''); // the local synthesis, of the items sent, still answered
  });

  it('synthesis slower than the deadline: "synthesis cut by deadline", an empty synthesis, the items reranked', async () => {
    const aborted: AbortSignal[] = [];
    const slow: Synthesizer = { name: 'slow', synthesize: (_a, _i, signal) => untilAborted(signal, aborted) };
    const b = await brief(withPorts({ synthesizer: slow, reranker: reverse }), { deadline_ms: 3000 });
    expect(b.warnings).toEqual(['synthesis cut by deadline']);
    expect(b.synthesis).toEqual({ text: '', cites: [] });
    expect(aborted).toHaveLength(1);
    expect(tierOrder(b)).toEqual(tierOrder(await brief(withPorts({ reranker: reverse }))));
    expectOtherRetrieversFound(b);
  });

  it('a failing reranker is a warning, and nothing it started outlives the brief', async () => {
    const signals: AbortSignal[] = [];
    let calls = 0;
    const flaky: Reranker = {
      name: 'flaky',
      score: (_q, _c, signal) => {
        signals.push(signal!);
        return calls++ === 0 ? Promise.reject(new Error('reranker exploded')) : untilAborted(signal, []);
      },
    };
    const b = await brief(withPorts({ reranker: flaky }));
    expect(b.warnings).toEqual(['rerank failed: reranker exploded']);
    // One rerank over every tier's candidates (relevance decides what is sent, across tiers).
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(tierOrder(b)).toEqual(tierOrder(await brief(withPorts({ reranker: flat }))));
  });
});

describe('hosted providers that keep failing', () => {
  it('Voyage rerank answering 429 then 500: retried, then "rerank failed", and the brief still answers', async () => {
    const voyage = fakeVoyageRerank((_req, n) => voyageError(n === 0 ? 429 : 500));
    const baseUrl = `${await voyage.start()}/v1`;
    try {
      const reranker = voyageReranker({ apiKey: 'vo-test', baseUrl, retry: { ...noWait, maxAttempts: 3 } });
      const b = await brief(withPorts({ reranker }));
      expect(voyage.seen.length).toBeGreaterThan(1);
      expect(voyage.statuses.slice(0, 2)).toEqual([429, 500]);
      for (const req of voyage.seen) {
        expect(req.headers.authorization).toBe('Bearer vo-test');
        // The rerank query is the ask plus the names in the paths it touches.
        expect(req.body).toMatchObject({ query: `${ASK.about} billing routes`, model: 'rerank-2.5' });
      }
      expect(b.warnings).toEqual(['rerank failed: voyage rerank failed: HTTP 500 (Internal server error) after 3 attempts']);
      expectOtherRetrieversFound(b);
      expect(b.synthesis.text).not.toBe('');
    } finally {
      await voyage.stop();
    }
  });

  it('Anthropic answering 500: retried, then "synthesis failed…" and an empty synthesis', async () => {
    const anthropic = fakeAnthropicMessages(() => anthropicError(500));
    const baseURL = await anthropic.start();
    try {
      const synthesizer = anthropicSynthesizer({ apiKey: 'sk-test', baseURL, timeoutMs: 5000, retry: { ...noWait, maxAttempts: 2 } });
      const b = await brief(withPorts({ synthesizer }));
      expect(anthropic.statuses).toEqual([500, 500]); // the first try and its one retry
      expect(anthropic.seen[0]!.body.messages[0].content).toContain(ASK.about);
      expect(b.warnings).toHaveLength(1);
      expect(b.warnings[0]).toBe('synthesis failed: anthropic messages failed: HTTP 500 (Internal server error) after 2 attempts');
      expect(b.synthesis).toEqual({ text: '', cites: [] });
      expectOtherRetrieversFound(b);
    } finally {
      await anthropic.stop();
    }
  });
});
