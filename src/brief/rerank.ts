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
export async function rerankRelevance(reranker: Reranker, queries: string[], items: RerankInput[], signal?: AbortSignal): Promise<Map<string, number>> {
  if (items.length < 2) return priorRelevance(items);
  const candidates = items.map(({ id, text }) => ({ id, text }));
  const perQuery = reranker.scoreEach && queries.length > 1 ? await reranker.scoreEach(queries, candidates, signal) : await Promise.all(queries.map((q) => reranker.score(q, candidates, signal)));
  const best = items.map((_, i) => Math.max(...perQuery.map((scores) => scores[i]! / Math.max(...scores.map((s) => Math.abs(s)), 1e-9))));
  const prior = priorRelevance(items);
  const blended = items.map((item, i) => best[i]! + PRIOR_WEIGHT * prior.get(item.id)!);
  const top = Math.max(...blended, 1e-9);
  return new Map(items.map((item, i) => [item.id, Math.max(0, blended[i]!) / top]));
}
