// The rankings the eval compares, all over the same index in the same process:
//   brief    — the brief's fused candidates (src/search/retrieve.ts), retired records dropped,
//              the top 50 reranked globally by the configured reranker, the rest after;
//   fused    — the same without the rerank (diagnostic: what the rerank adds or costs);
//   bm25     — the vector store's sparse (BM25) hits alone, chunks mapped to records;
//   vector   — the vector store's dense hits alone, chunks mapped to records;
//   fulltext — the brief's Postgres full-text retriever alone.
// The brief also gets the query's `touching`; the baselines see only its text, as a plain
// search box would.
import { Deadline, type StepOutcome } from '../src/search/deadline.js';
import { retrieveCandidates, withTouchedNames } from '../src/search/retrieve.js';
import { fulltextSeeds } from '../src/search/retrievers.js';
import { rerankWithPrior } from '../src/brief/rerank.js';
import type { EvalDoco } from './harness.js';

export const SYSTEMS = ['brief', 'fused', 'bm25', 'vector', 'fulltext'] as const;
export type SystemName = (typeof SYSTEMS)[number];

/** How deep each ranking is kept (MRR looks at the top 100). */
export const DEPTH = 100;
const RERANK_TOP = 50;
/** Generous: the eval measures ranking, not the deadline (a cut step is still reported). */
const DEADLINE_MS = 60_000;

export interface EvalQuery {
  id: string;
  about: string;
  touching: string[];
  relevant: string[];
}

export interface Rankings {
  ranked: Record<SystemName, string[]>;
  ms: Record<SystemName, number>;
  warnings: string[];
}

const firstOccurrence = (ids: string[], limit = DEPTH) => [...new Set(ids)].slice(0, limit);

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

export async function rankQuery(doco: EvalDoco, q: EvalQuery): Promise<Rankings> {
  const { sql, providers, workspaceId } = doco;
  const warnings: string[] = [];
  const keep = <T>(o: StepOutcome<T>, fallback: T): T => {
    if (o.ok) return o.value;
    warnings.push(o.warning);
    return fallback;
  };

  // The brief: retrieval (seeds, hop, fusion), then one global rerank of the live top 50.
  const [retrieveMs, retrieval] = await timed(() =>
    retrieveCandidates({ sql, embedder: providers.embedder, store: providers.store }, workspaceId, { about: q.about, touching: q.touching, deadline_ms: DEADLINE_MS }, new Deadline(DEADLINE_MS), keep),
  );
  const live = retrieval.order.filter((id) => {
    const row = retrieval.rows.get(id);
    return row !== undefined && row.lifecycle !== 'retired';
  });
  const [rerankMs, reranked] = await timed(async () => {
    const head = live.slice(0, RERANK_TOP);
    const texts = head.map((id) => {
      const row = retrieval.rows.get(id)!;
      return { id, text: `${row.title}\n${(row.prose || row.title).slice(0, 2000)}`, prior: retrieval.scores.get(id) ?? 0 };
    });
    return [...(await rerankWithPrior(providers.reranker, withTouchedNames(q.about, q.touching), texts)), ...live.slice(RERANK_TOP)];
  });

  // The store's two halves, alone: the same call the vector retriever makes.
  const [storeMs, hits] = await timed(async () => {
    const [vector] = await providers.embedder.embed([q.about], 'query');
    return providers.store.search({ tenant: workspaceId, vector: vector!, text: q.about, limit: DEPTH * 3 });
  });
  const [fulltextMs, fulltext] = await timed(() => fulltextSeeds(sql, workspaceId, q.about, undefined, DEPTH));

  return {
    ranked: {
      brief: reranked.slice(0, DEPTH),
      fused: live.slice(0, DEPTH),
      bm25: firstOccurrence(hits.sparse.map((h) => h.nodeId)),
      vector: firstOccurrence(hits.dense.map((h) => h.nodeId)),
      fulltext: fulltext.ids.slice(0, DEPTH),
    },
    ms: { brief: retrieveMs + rerankMs, fused: retrieveMs, bm25: storeMs, vector: storeMs, fulltext: fulltextMs },
    warnings,
  };
}
