// Weighted reciprocal-rank fusion (DESIGN §4 step 3), k = 60: each seed list weighs 1, the hop
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
