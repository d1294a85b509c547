// The vector store port: dense vectors plus a BM25 sparse index over the same chunks, scoped
// by tenant (workspace). Two implementations: the embedded in-process index (default) and
// Qdrant. Both tokenise with src/text/tokenize.ts so BM25 behaves the same in each.

export interface ChunkPoint {
  /** The chunk's id (a UUID, also the Qdrant point id). */
  id: string;
  /** The workspace id: every query is filtered by it. */
  tenant: string;
  collectionId: string;
  /** The record (or document) the chunk belongs to. */
  nodeId: string;
  nodeType: string;
  /** e.g. "architecturePrinciple", "docSection"; "" for plain records. */
  shape: string;
  /** record | doc | docs_pack | github | slack | notion | drive */
  sourceKind: string;
  /** The text BM25 indexes: the embedding input (title + heading path + body). */
  text: string;
  /** The start of `text` that is its title and heading path (chunker.ts's embedHeader): BM25 weighs its terms more. */
  header?: string;
  /** tokenize(text), when the caller holds it (the drain's chunks): the store need not tokenize `text` again. */
  terms?: readonly string[];
  vector: Float32Array;
}

export interface StoreFilter {
  collectionIds?: string[];
  nodeTypes?: string[];
  shapes?: string[];
  sourceKinds?: string[];
}

export interface StoreQuery {
  tenant: string;
  vector: Float32Array;
  /** The query text, tokenised for BM25. */
  text: string;
  limit: number;
  filter?: StoreFilter;
  /** BM25 only: the dense scan is skipped (its hits come back empty). */
  sparseOnly?: boolean;
  /**
   * The caller has nothing else in flight (the duplicate guard on a write): the embedded store
   * skips the pause it takes so a brief's SQL retrievers go out before its scan holds the thread.
   */
  alone?: boolean;
  /**
   * The text is a record's own words (the duplicate guard's lookup): the embedded index looks up
   * the rarest of them, and scores every posting, since the documents holding them score alike
   * and pruning would probe most of them anyway, at 1.2 to 7 times the cost (docs/eval.md,
   * "Session 23").
   */
  recordWords?: boolean;
}

export interface StoreHit {
  id: string;
  nodeId: string;
  score: number;
}

/**
 * Where a search in this process spent its time (the embedded store): `bm25`, BM25 in this
 * thread; `dense`, what the dense search took after it (waiting for the scan workers'
 * shortlist, or scanning here, then the exact stage). A brief reports them as
 * `seed_vector_bm25` and `seed_vector_dense`.
 */
export interface StoreTimings {
  bm25: number;
  dense: number;
}

export interface StoreAnswer {
  dense: StoreHit[];
  sparse: StoreHit[];
  warnings?: string[];
  timings?: StoreTimings;
}

export interface VectorStore {
  readonly kind: 'embedded' | 'qdrant';
  /** Prepares storage for this embedder (e.g. the Qdrant collection for its identity). */
  init(embedderIdentity: string, dimensions: number): Promise<void>;
  upsert(points: ChunkPoint[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
  /**
   * Dense (cosine) and BM25 hits, each best first, both at most `limit`; warnings when it answered
   * in a degraded way; its own steps' milliseconds where it times them (StoreTimings).
   */
  search(query: StoreQuery): Promise<StoreAnswer>;
  /** How many points the store holds for this embedder (for staleness checks). */
  count(): Promise<number>;
  close(): Promise<void>;
}
