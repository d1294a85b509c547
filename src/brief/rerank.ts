// Reranking a block of candidates (a tier in the brief; the whole head in the eval): the
// reranker's relevance blended with the retrieval's fused score, so evidence the reranker cannot
// see (meaning found by the vector search, a touched path, a graph link) still counts.
import type { Reranker } from '../providers/reranker.js';

/** Weight of the first-stage (fused) score beside the reranker's, both scaled to [0, 1]. */
export const PRIOR_WEIGHT = 0.5;

export interface RerankInput {
  id: string;
  text: string;
  /** The fused retrieval score. */
  prior: number;
}

/** Measured with `npm run eval` on both corpora: 0.5 beat 0 (rerank alone) and 1. */
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
