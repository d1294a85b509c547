// Weighted reciprocal-rank fusion (docs/brief.md, step 3), k = 60: each seed list weighs 1, the hop
// 0.75, PageRank and recency 0.25 each, so authority and freshness only break ties.
export const RRF_K = 60;

export interface RankedList {
  name: string;
  weight: number;
  ids: string[];
  /** Ranks for `ids` when some tie (equal values share the better rank); default 1, 2, 3… */
  ranks?: number[];
}

export function fuseByReciprocalRank(lists: RankedList[], k = RRF_K): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.ids.forEach((id, i) => {
      const rank = list.ranks?.[i] ?? i + 1;
      scores.set(id, (scores.get(id) ?? 0) + list.weight / (k + rank));
    });
  }
  return scores;
}

/**
 * A list ranked by a value, best first, where equal values share a rank (1, 2, 2, 4…). A list
 * whose values are all equal ranks everyone first: it then changes no order, which is what a
 * tie-breaker must do when it has nothing to say (every doc ingested at once, no edges yet).
 */
export function rankedByValue(name: string, weight: number, entries: { id: string; value: number }[]): RankedList {
  const sorted = [...entries].sort((a, b) => b.value - a.value);
  const ranks: number[] = [];
  sorted.forEach((e, i) => ranks.push(i > 0 && e.value === sorted[i - 1]!.value ? ranks[i - 1]! : i + 1));
  return { name, weight, ids: sorted.map((e) => e.id), ranks };
}

export const sortByScore = (scores: Map<string, number>): string[] =>
  [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);

/** A seed list with its retriever's own scores (best first), for score-aware fusion. */
export interface ScoredList {
  name: string;
  weight: number;
  ids: string[];
  scores: number[];
  /**
   * How a score becomes a share of the list's best: `zero` reads it against 0 (BM25, fixed
   * strengths), `tail` against the list's last score, for a similarity whose unrelated floor is
   * well above 0 (cosine over hashed features sits near 0.15 for unrelated texts).
   */
  floor: 'zero' | 'tail';
}

/**
 * Score-aware fusion: each list's scores scaled to [0, 1] against its best, weighted and summed.
 * Unlike RRF it keeps how far ahead a top hit is, so one strong signal (the only section naming
 * the touched file, a BM25 hit far above the rest) is not outvoted by weak agreement of
 * correlated lists. The weights are chosen by measurement (`npm run eval`).
 */
export function fuseByScore(lists: ScoredList[]): Map<string, number> {
  const fused = new Map<string, number>();
  for (const list of lists) {
    if (!list.ids.length || list.weight === 0) continue;
    const shares = listShares(list);
    list.ids.forEach((id, i) => fused.set(id, (fused.get(id) ?? 0) + list.weight * shares[i]!));
  }
  return fused;
}

/** Each of a list's scores as a share in [0, 1] of its best, read against its floor (what fuseByScore weighs). */
export function listShares(list: Pick<ScoredList, 'scores' | 'floor'>): number[] {
  if (!list.scores.length) return [];
  const top = Math.max(...list.scores);
  const lo = list.floor === 'tail' && list.scores.length > 1 ? Math.min(...list.scores) : 0;
  const span = top - lo;
  return list.scores.map((s) => (span > 0 ? Math.max(0, (s - lo) / span) : 1));
}
