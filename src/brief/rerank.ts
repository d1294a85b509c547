// Relevance: the reranker's score blended with the retrieval's fused score, so evidence the
// reranker cannot see (meaning found by the vector search, a touched path, a graph link) still
// counts. The blend, scaled so the best candidate is 1, is the relevance the brief's budget,
// floor and item scores use.
import type { Reranker } from '../providers/reranker.js';

/**
 * Weight of the first-stage (fused) score beside the reranker's, both scaled to [0, 1].
 * Measured with `npm run eval` on three corpora (docs/eval.md).
 */
export const PRIOR_WEIGHT = 1.5;

export interface RerankInput {
  id: string;
  text: string;
  /** The text's BM25 terms, when already tokenized (a local reranker reads them instead of the text). */
  terms?: readonly string[];
  /** The fused retrieval score. */
  prior: number;
}

/** Relevance in [0, 1] per id (the best is 1), without a reranker: the fused score alone. */
export function priorRelevance(items: RerankInput[]): Map<string, number> {
  const maxPrior = Math.max(...items.map((i) => i.prior), 1e-9);
  return new Map(items.map((i) => [i.id, i.prior / maxPrior]));
}

/**
 * `queries` is the ask, then its clauses when it has several: each is scored on its own and a
 * candidate keeps its best, so one answering a single concern well is not outscored by one
 * touching every concern weakly.
 */
export async function rerankRelevance(
  reranker: Reranker,
  queries: string[],
  items: RerankInput[],
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  return (await rerankByClause(reranker, queries, items, [], signal)).relevance;
}

export interface ClauseRelevance {
  /** Relevance to the ask, as rerankRelevance gives it. */
  relevance: Map<string, number>;
  /** Per clause (queries[1..]), relevance to that clause alone, in [0, 1] (its best is 1). */
  byClause: Map<string, number>[];
}

/**
 * rerankRelevance, and beside it each clause's own relevance: the reranker's score for the
 * clause blended, at the same weight, with the record's share of the clause's own lexical
 * retrieval (`clausePriors`, one map per clause), so a clause is judged the way the whole ask is.
 */
export async function rerankByClause(
  reranker: Reranker,
  queries: string[],
  items: RerankInput[],
  clausePriors: Map<string, number>[],
  signal?: AbortSignal,
): Promise<ClauseRelevance> {
  if (items.length < 2) return { relevance: priorRelevance(items), byClause: [] };
  const candidates = items.map(({ id, text, terms }) => (terms ? { id, text, terms } : { id, text }));
  const perQuery =
    reranker.scoreEach && queries.length > 1
      ? await reranker.scoreEach(queries, candidates, signal)
      : await Promise.all(queries.map((q) => reranker.score(q, candidates, signal)));
  const scaled = perQuery.map((scores) => {
    const top = Math.max(...scores.map((s) => Math.abs(s)), 1e-9);
    return scores.map((s) => s / top);
  });
  const best = items.map((_, i) => Math.max(...scaled.map((scores) => scores[i]!)));
  const prior = priorRelevance(items);
  const relevance = scaleToBest(items.map((item, i) => [item.id, best[i]! + PRIOR_WEIGHT * prior.get(item.id)!]));
  const byClause = scaled
    .slice(1)
    .map((scores, c) => scaleToBest(items.map((item, i) => [item.id, scores[i]! + PRIOR_WEIGHT * (clausePriors[c]?.get(item.id) ?? 0)])));
  return { relevance, byClause };
}

function scaleToBest(entries: [string, number][]): Map<string, number> {
  const top = Math.max(...entries.map(([, v]) => v), 1e-9);
  return new Map(entries.map(([id, v]) => [id, Math.max(0, v) / top]));
}
