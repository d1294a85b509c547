// The eval's feature dump (eval/pool-trace.ts, eval/fit-weights.ts): a brief asked with a
// trace hook hands over every candidate of its rerank pool with the evidence the relevance was
// built from, and sends exactly what it sends without the hook. Real Postgres, real write path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBrief } from '../../src/brief/compose.js';
import { tracePool, type PoolTrace } from '../../eval/pool-trace.js';
import { PRIOR_WEIGHT } from '../../src/brief/rerank.js';
import type { Brief, BriefRequest } from '../../src/brief/types.js';
import { blendLexical } from '../../src/providers/local-reranker.js';
import { SEED_WEIGHTS } from '../../src/retrieval/retrieve.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { docSection, writer } from '../helpers/brief-docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
const providers = localProviders();
let touched = '';

const ask: BriefRequest = {
  about: 'shorten the retention period of tenant blocks in the bucket, and update the operator guide',
  touching: ['pkg/storage/retention.go'],
  budget: 4000,
  since: '7d',
  deadline_ms: 30_000,
};
const brief = (trace?: (p: PoolTrace) => void) =>
  composeBrief(
    { sql: t.sql, db: t.db, ...providers, ...(trace ? { trace: (evidence) => trace(tracePool(evidence)) } : {}) },
    { workspaceId: ws.id, principalId: ws.principalId },
    ask,
  );
const sent = (b: Brief) =>
  Object.values(b.tiers)
    .flat()
    .map((i) => [i.id, i.score, i.expanded]);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'pool-trace');
  const post = writer(makeApp(t, undefined, providers), () => ws);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'The service documentation' });
  for (let i = 0; i < 12; i++) {
    await post(
      '/capture',
      docSection(
        `docs/storage/note-${i}.md`,
        `Storage note ${i}`,
        `Part ${i} of how tenant blocks are kept: the retention period of a tenant's blocks in the bucket decides when compaction deletes them, and note ${i} explains one more detail of it.`,
      ),
    );
  }
  await post(
    '/capture',
    docSection(
      'docs/operators/guide.md',
      'Updating the operator guide',
      'A change an operator can see updates the operator guide and its defaults table in the same pull request.',
    ),
  );
  touched = (
    await post(
      '/capture',
      docSection(
        'docs/storage/retention.md',
        'Retention code',
        'The retention loop lives in pkg/storage/retention.go and runs once an hour per tenant.',
      ),
    )
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a brief with a trace hook', () => {
  it('hands over each pool candidate with its evidence and sends what it sends without the hook', async () => {
    const traces: PoolTrace[] = [];
    const traced = await brief((p) => traces.push(p));
    const plain = await brief();
    expect(sent(traced)).toEqual(sent(plain));
    expect(traces).toHaveLength(1);
    const [trace] = traces;
    expect(trace!.reranker).toBe(providers.reranker.name);
    // The ask with the touched file's names, then its two clauses.
    expect(trace!.queries).toHaveLength(3);
    expect(trace!.queries[0]).toContain('storage');
    const byId = new Map(trace!.candidates.map((c) => [c.id, c]));
    for (const item of Object.values(traced.tiers).flat()) expect(item.score).toBeCloseTo(byId.get(item.id)!.relevance, 6);
    const head = trace!.candidates.filter((c) => c.head);
    expect(head.length).toBeGreaterThan(10);
    for (const c of trace!.candidates) {
      // The prior is the weighted seed shares plus what the hop and PageRank added.
      const fused = Object.entries(c.shares).reduce((s, [list, share]) => s + SEED_WEIGHTS[list as keyof typeof SEED_WEIGHTS] * share, 0);
      expect(c.prior).toBeCloseTo(fused + c.graph, 9);
      expect(c.lexical).toHaveLength(c.head ? 3 : 0);
      expect(c.by_clause).toHaveLength(2);
    }
    expect(byId.get(touched)!.touch?.score).toBe(1);
    // A doc section's title leads with its document's, so a reader of the dump can tell which file it is.
    expect(byId.get(touched)!.title).toContain('Retention code');
    // The hand blend, rebuilt from the evidence, orders the head as the brief's relevance did
    // before the touch floor and clause coverage: the best by the blend is the brief's best.
    const headPrior = Math.max(...head.map((c) => c.prior));
    const tops = trace!.queries.map((_, k) => Math.max(...head.map((c) => blendLexical(c.lexical[k]!))));
    const blend = (c: (typeof head)[number]) =>
      Math.max(...c.lexical.map((f, k) => blendLexical(f) / tops[k]!)) + (PRIOR_WEIGHT * c.prior) / headPrior;
    const best = [...head].sort((a, b) => blend(b) - blend(a))[0]!;
    expect(best.relevance).toBe(1);
  });
});
