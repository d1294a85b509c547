// The reranker port: reorders candidates by relevance to a query (within one tier at a time).
export interface RerankCandidate {
  id: string;
  text: string;
}

export interface Reranker {
  readonly name: string;
  /** A relevance score per candidate, same order as given; higher is more relevant. */
  score(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<number[]>;
}
