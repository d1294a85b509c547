// Retrieval metrics over ranked record ids: recall@10 (the share of a query's relevant targets
// in the top 10) and reciprocal rank (1 / rank of the first relevant target, 0 when none is in
// the top 100), each averaged over the queries.
export const RECALL_AT = 10;
export const MRR_DEPTH = 100;

export interface QueryScore {
  recall: number;
  /** The share of relevant targets sent in full (the brief only; 0 for a plain ranking). */
  sent: number;
  rr: number;
  /** 1-based rank of each relevant id in the ranking (undefined: not in the top 100). */
  ranks: (number | undefined)[];
}

export function scoreRanking(ranking: string[], relevant: string[], sent: Set<string> = new Set()): QueryScore {
  const position = new Map<string, number>();
  ranking.slice(0, MRR_DEPTH).forEach((id, i) => {
    if (!position.has(id)) position.set(id, i + 1);
  });
  const ranks = relevant.map((id) => position.get(id));
  const found = ranks.filter((r): r is number => r !== undefined);
  const recall = relevant.length ? found.filter((r) => r <= RECALL_AT).length / relevant.length : 0;
  const best = found.length ? Math.min(...found) : undefined;
  return {
    recall,
    sent: relevant.length ? relevant.filter((id) => sent.has(id)).length / relevant.length : 0,
    rr: best ? 1 / best : 0,
    ranks,
  };
}

export interface Summary {
  recall_at_10: number;
  sent_in_full: number;
  mrr: number;
  /** Queries with at least one relevant target in the top 10. */
  hit_at_10: number;
  /** Queries with every relevant target in the top 10. */
  all_at_10: number;
  queries: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function summarise(scores: QueryScore[]): Summary {
  const n = scores.length;
  const mean = (f: (s: QueryScore) => number) => (n ? scores.reduce((sum, s) => sum + f(s), 0) / n : 0);
  return {
    recall_at_10: round(mean((s) => s.recall)),
    sent_in_full: round(mean((s) => s.sent)),
    mrr: round(mean((s) => s.rr)),
    hit_at_10: scores.filter((s) => s.ranks.some((r) => r !== undefined && r <= RECALL_AT)).length,
    all_at_10: scores.filter((s) => s.recall === 1).length,
    queries: n,
  };
}

/** The brief at one budget, per query kind: the ranking's figures and what was sent, averaged over the queries. */
export interface BudgetSummary {
  recall_at_10: number;
  sent_in_full: number;
  mrr: number;
  /** Mean tokens sent (the brief's `stats.sent_tokens`). */
  tokens: number;
  /** Mean items sent, and of them in full. */
  items: number;
  expanded: number;
  /** The share of the items sent in full that are targets (0 for a brief that sent none in full). */
  expanded_precision: number;
  queries: number;
}

/** One query's brief at one budget: its scores against the targets and what it sent. */
export interface BudgetScore {
  score: QueryScore;
  tokens: number;
  items: number;
  expanded: number;
  /** Targets among the items sent in full / items sent in full. */
  precision: number;
}

export function scoreBrief(
  ranking: string[],
  relevant: string[],
  sent: Set<string>,
  size: { tokens: number; items: number; expanded: number },
): BudgetScore {
  const targets = new Set(relevant);
  const hits = [...sent].filter((id) => targets.has(id)).length;
  return {
    score: scoreRanking(ranking, relevant, sent),
    tokens: size.tokens,
    items: size.items,
    expanded: size.expanded,
    precision: sent.size ? hits / sent.size : 0,
  };
}

export function summariseBudget(scores: BudgetScore[]): BudgetSummary {
  const n = scores.length;
  const mean = (f: (s: BudgetScore) => number) => (n ? scores.reduce((sum, s) => sum + f(s), 0) / n : 0);
  const { recall_at_10, sent_in_full, mrr } = summarise(scores.map((s) => s.score));
  return {
    recall_at_10,
    sent_in_full,
    mrr,
    tokens: Math.round(mean((s) => s.tokens)),
    items: Math.round(mean((s) => s.items) * 10) / 10,
    expanded: Math.round(mean((s) => s.expanded) * 10) / 10,
    expanded_precision: round(mean((s) => s.precision)),
    queries: n,
  };
}
