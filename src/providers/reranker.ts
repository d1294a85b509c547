// The reranker port: scores candidates by relevance to a query (the brief's pool, across tiers).
export interface RerankCandidate {
  id: string;
  text: string;
  /** The text's BM25 terms (tokenize(text)) when the caller holds them: a local reranker need not tokenize again. */
  terms?: readonly string[];
}

export interface Reranker {
  readonly name: string;
  /** A relevance score per candidate, same order as given; higher is more relevant. */
  score(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<number[]>;
  /** Scores for several queries at once (a multi-part ask's clauses), when the reranker can share work between them. */
  scoreEach?(queries: string[], candidates: RerankCandidate[], signal?: AbortSignal): Promise<number[][]>;
}
