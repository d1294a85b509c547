// The evidence behind each candidate of the brief's rerank pool, for the eval's weight fitting
// (eval/fit-weights.ts): each seed list's share, what the hop and PageRank added, the local
// reranker's signals one by one, each clause's relevance and the exact touches, beside the
// relevance the brief gave. Built here from what the brief hands its trace hook (BriefDeps.trace,
// src/brief/compose.ts): the brief itself never reads it.
import { lexicalFeaturesEach, type LexicalFeatures } from '../src/providers/local-reranker.js';
import { listShares } from '../src/retrieval/fuse.js';
import { scoredSeedLists, type Retrieval } from '../src/retrieval/retrieve.js';
import type { SeedList } from '../src/retrieval/retrievers.js';
import type { PoolEvidence } from '../src/brief/compose.js';
import { isConstitution } from '../src/brief/tiers.js';

export interface PoolCandidateTrace {
  id: string;
  node_type: string;
  /** The record's title (for a doc section, "Document — Heading"), so a reader of the dump can tell sections apart. */
  title: string;
  constitution: boolean;
  /** Among the candidates the reranker read (the rest rank below them by their fused score). */
  head: boolean;
  /** The fused retrieval score (the rerank's prior): the seed lists' fusion plus `graph`. */
  prior: number;
  /** Each seed list's share of its best score (unweighted); absent: not on that list. */
  shares: Partial<Record<SeedList['name'], number>>;
  /** What the hop and PageRank added to the seed lists' fusion. */
  graph: number;
  pagerank: number;
  /** The local reranker's signals for the whole ask, then for each clause (head only; none past it). */
  lexical: LexicalFeatures[];
  /** Relevance to each clause alone, as clause coverage reads it. */
  by_clause: number[];
  /** The touches list's score (1: the record names a touched path exactly) and its place on that list. */
  touch?: { score: number; at: number };
  /** The relevance the brief gave, after the touch floor and clause coverage. */
  relevance: number;
}

export interface PoolTrace {
  reranker: string;
  /** The ask (with the touched paths' names) and its clauses, as the reranker read them. */
  queries: string[];
  candidates: PoolCandidateTrace[];
}

export function tracePool(input: PoolEvidence): PoolTrace {
  const { retrieval } = input;
  const shares = new Map<string, Partial<Record<SeedList['name'], number>>>();
  for (const list of scoredSeedLists(retrieval.seeds)) {
    listShares(list).forEach((share, i) => {
      const id = list.ids[i]!;
      const own = shares.get(id) ?? {};
      own[list.name as SeedList['name']] = Math.max(own[list.name as SeedList['name']] ?? 0, share);
      shares.set(id, own);
    });
  }
  const lexical = lexicalFeaturesEach(
    input.queries,
    input.head.map(({ id, text, terms }) => (terms ? { id, text, terms } : { id, text })),
  );
  const headAt = new Map(input.head.map((h, i) => [h.id, i]));
  const touchAt = new Map((retrieval.touches?.ids ?? []).map((id, i) => [id, i]));
  const candidates = input.pool.map((id): PoolCandidateTrace => {
    const row = input.rows.get(id)!;
    const prior = retrieval.scores.get(id) ?? 0;
    const h = headAt.get(id);
    const t = touchAt.get(id);
    return {
      id,
      node_type: row.node_type,
      title: row.title,
      constitution: isConstitution(row),
      head: h !== undefined,
      prior,
      shares: shares.get(id) ?? {},
      graph: prior - (retrieval.fused.get(id) ?? 0),
      pagerank: row.pagerank,
      lexical: h === undefined ? [] : lexical.map((q) => q[h]!),
      by_clause: input.byClause.map((c) => c.get(id) ?? 0),
      ...(t !== undefined ? { touch: { score: retrieval.touches!.scores[t]!, at: t } } : {}),
      relevance: input.relevance.get(id) ?? 0,
    };
  });
  return { reranker: input.reranker, queries: input.queries, candidates };
}
