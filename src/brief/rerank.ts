// Reranking a block of candidates (a tier in the brief; the whole head in the eval): the
// reranker's relevance blended with the retrieval's fused score, so evidence the reranker cannot
// see (meaning found by the vector search, a touched path, a graph link) still counts.
import type { Reranker } from '../providers/reranker.js';

/** Weight of the first-stage (fused) score beside the reranker's, both scaled to [0, 1]. */
export const PRIOR_WEIGHT = 1.5;

export interface RerankInput {
  id: string;
  text: string;
  /** The fused retrieval score. */
  prior: number;
}

/**
 * Measured with `npm run eval` (recall@10 / MRR, Ledgerly fixture · CometBFT docs): 0.5 gave
 * 0.790/0.751 · 0.760/0.571, 1 gave 0.808/0.760 · 0.752/0.597, 1.5 gave 0.831/0.742 · 0.760/0.606,
 * 3 gave 0.818/0.723 · 0.752/0.592: the lexical reranker is worth most as a tie-breaker.
 */
export async function rerankWithPrior(reranker: Reranker, query: string, items: RerankInput[], signal?: AbortSignal): Promise<string[]> {
  if (items.length < 2) return items.map((i) => i.id);
  const scores = await reranker.score(query, items.map(({ id, text }) => ({ id, text })), signal);
  const maxScore = Math.max(...scores.map((s) => Math.abs(s)), 1e-9);
  const maxPrior = Math.max(...items.map((i) => i.prior), 1e-9);
  return items
    .map((item, i) => ({ id: item.id, s: scores[i]! / maxScore + PRIOR_WEIGHT * (item.prior / maxPrior), i }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.id);
}
