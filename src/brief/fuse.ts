// Weighted reciprocal-rank fusion (DESIGN §4 step 3), k = 60: each seed list weighs 1, the hop
// 0.75, PageRank and recency 0.25 each, so authority and freshness only break ties.
export const RRF_K = 60;

export interface RankedList {
  name: string;
  weight: number;
  ids: string[];
}

export function fuseByReciprocalRank(lists: RankedList[], k = RRF_K): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.ids.forEach((id, rank) => {
      scores.set(id, (scores.get(id) ?? 0) + list.weight / (k + rank + 1));
    });
  }
  return scores;
}

export const sortByScore = (scores: Map<string, number>): string[] =>
  [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
