// The vector store port on Qdrant: one collection per embedder identity holding a named dense
// vector and a BM25 sparse vector (Qdrant applies the IDF), every query scoped to one tenant.
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { sparseDocumentVector, sparseQueryVector } from '../../text/tokenize.js';
import type { ChunkPoint, StoreFilter, StoreHit, StoreQuery, VectorStore } from './port.js';

export interface QdrantStoreOptions {
  url: string;
  apiKey?: string;
  /** Prepended to every collection name; default "doco". */
  collectionPrefix?: string;
}

/** A failed Qdrant call, or a collection Doco cannot use; `operation` names what was attempted. */
export class QdrantStoreError extends Error {
  constructor(
    readonly operation: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'QdrantStoreError';
  }
}

export const DENSE_VECTOR = 'dense';
export const SPARSE_VECTOR = 'bm25';
/** Points per upsert (and ids per delete) request: keeps each request body a few MB at most. */
export const QDRANT_BATCH_SIZE = 256;
/** Keyword indexes beside `tenant`, one per field a search filters on. */
export const KEYWORD_FIELDS = ['collection_id', 'node_type', 'shape', 'source_kind', 'node_id'] as const;

/**
 * The collection for an embedder: `<prefix>__<identity>` with every character Qdrant or a URL
 * path could mind turned into `_`, e.g. "voyage/voyage-3.5/1024" → "doco__voyage_voyage-3.5_1024".
 */
export function qdrantCollectionName(prefix: string, embedderIdentity: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9.-]/g, '_');
  if (!embedderIdentity) throw new QdrantStoreError('init', 'Qdrant init: the embedder identity is empty');
  return `${safe(prefix)}__${safe(embedderIdentity)}`;
}

interface Target {
  collection: string;
  dimensions: number;
}

const NO_HITS = { dense: [] as StoreHit[], sparse: [] as StoreHit[] };

export function qdrantStore(opts: QdrantStoreOptions): VectorStore {
  // checkCompatibility off: otherwise the client asks the server for its version at start-up.
  const client = new QdrantClient({ url: opts.url, apiKey: opts.apiKey, checkCompatibility: false });
  const prefix = opts.collectionPrefix ?? 'doco';
  let target: Target | undefined;

  const current = (operation: string): Target => {
    if (!target) throw new QdrantStoreError(operation, `Qdrant ${operation}: the store is not initialised (call init first)`);
    return target;
  };

  const call = async <T>(operation: string, collection: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw new QdrantStoreError(operation, `Qdrant ${operation} on collection "${collection}" failed: ${describeFailure(err)}`, {
        cause: err,
      });
    }
  };

  async function findCollection(collection: string): Promise<Schemas['CollectionInfo'] | undefined> {
    try {
      return await client.getCollection(collection);
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw new QdrantStoreError('init', `Qdrant init: reading collection "${collection}" failed: ${describeFailure(err)}`, { cause: err });
    }
  }

  async function createCollection(collection: string, dimensions: number): Promise<Schemas['CollectionInfo'] | undefined> {
    try {
      await client.createCollection(collection, {
        vectors: {
          [DENSE_VECTOR]: { size: dimensions, distance: 'Cosine', on_disk: true, hnsw_config: { m: 32, ef_construct: 200 } },
        },
        sparse_vectors: { [SPARSE_VECTOR]: { modifier: 'idf' } },
      });
      return undefined;
    } catch (err) {
      // 409: another process created it between our read and our create; use theirs.
      if (statusOf(err) === 409) {
        const info = await findCollection(collection);
        if (info) return info;
      }
      throw new QdrantStoreError('init', `Qdrant init: creating collection "${collection}" failed: ${describeFailure(err)}`, {
        cause: err,
      });
    }
  }

  /** Creates the payload indexes the collection lacks (all of them for a new collection). */
  async function ensureIndexes(collection: string, existing: Schemas['CollectionInfo']['payload_schema']): Promise<void> {
    const wanted: { field: string; schema: Schemas['PayloadFieldSchema'] }[] = [
      // is_tenant: Qdrant co-locates each tenant's points, so tenant-filtered search stays fast.
      { field: 'tenant', schema: { type: 'keyword', is_tenant: true } },
      ...KEYWORD_FIELDS.map((field) => ({ field, schema: 'keyword' as const })),
    ];
    for (const { field, schema } of wanted) {
      if (existing[field]) continue;
      await call('init', collection, () => client.createPayloadIndex(collection, { field_name: field, field_schema: schema, wait: true }));
    }
  }

  return {
    kind: 'qdrant',

    async init(embedderIdentity, dimensions) {
      if (!Number.isInteger(dimensions) || dimensions < 1) {
        throw new QdrantStoreError('init', `Qdrant init: dimensions must be a positive integer, got ${dimensions}`);
      }
      const collection = qdrantCollectionName(prefix, embedderIdentity);
      let info = await findCollection(collection);
      if (!info) info = await createCollection(collection, dimensions);
      if (info) checkCollectionShape(collection, info, embedderIdentity, dimensions);
      await ensureIndexes(collection, info?.payload_schema ?? {});
      target = { collection, dimensions };
    },

    async upsert(points) {
      if (points.length === 0) return;
      const { collection, dimensions } = current('upsert');
      for (const p of points) {
        if (p.vector.length !== dimensions) {
          throw new QdrantStoreError(
            'upsert',
            `Qdrant upsert: chunk ${p.id} has ${p.vector.length} dimensions, collection "${collection}" holds ${dimensions}`,
          );
        }
      }
      for (let i = 0; i < points.length; i += QDRANT_BATCH_SIZE) {
        const batch = points.slice(i, i + QDRANT_BATCH_SIZE).map(toPointStruct);
        const result = await call('upsert', collection, () => client.upsert(collection, { wait: true, points: batch }));
        expectCompleted('upsert', collection, result);
      }
    },

    async remove(ids) {
      if (ids.length === 0) return;
      const { collection } = current('remove');
      for (let i = 0; i < ids.length; i += QDRANT_BATCH_SIZE) {
        const batch = ids.slice(i, i + QDRANT_BATCH_SIZE);
        const result = await call('remove', collection, () => client.delete(collection, { wait: true, points: batch }));
        expectCompleted('remove', collection, result);
      }
    },

    async search(query) {
      const { collection, dimensions } = current('search');
      if (!query.tenant) throw new QdrantStoreError('search', 'Qdrant search: a tenant is required');
      if (query.vector.length !== dimensions) {
        throw new QdrantStoreError(
          'search',
          `Qdrant search: the query vector has ${query.vector.length} dimensions, collection "${collection}" holds ${dimensions}`,
        );
      }
      const filter = searchFilter(query.tenant, query.filter);
      if (!filter || query.limit < 1) return NO_HITS;
      const sparse = sparseQueryVector(query.text);
      const common = { filter, limit: query.limit, with_payload: ['node_id'] };
      const [dense, bm25] = await Promise.all([
        query.sparseOnly
          ? undefined
          : call('dense search', collection, () =>
              client.query(collection, { ...common, query: Array.from(query.vector), using: DENSE_VECTOR }),
            ),
        // A query of only stop words has no terms: there is nothing for BM25 to match.
        sparse.indices.length === 0
          ? undefined
          : call('BM25 search', collection, () => client.query(collection, { ...common, query: sparse, using: SPARSE_VECTOR })),
      ]);
      return { dense: dense ? toHits('dense search', dense) : [], sparse: bm25 ? toHits('BM25 search', bm25) : [] };
    },

    async count() {
      const { collection } = current('count');
      const result = await call('count', collection, () => client.count(collection, { exact: true }));
      return result.count;
    },

    async close() {
      // Nothing to release: the client holds no session, only pooled keep-alive sockets that
      // its HTTP agent closes when idle.
    },
  };
}

function toPointStruct(p: ChunkPoint): Schemas['PointStruct'] {
  return {
    id: p.id,
    vector: { [DENSE_VECTOR]: Array.from(p.vector), [SPARSE_VECTOR]: sparseDocumentVector(p.text, p.header, p.terms) },
    payload: {
      tenant: p.tenant,
      collection_id: p.collectionId,
      node_id: p.nodeId,
      node_type: p.nodeType,
      shape: p.shape,
      source_kind: p.sourceKind,
    },
  };
}

/**
 * Tenant first, always; then one `match any` per filter list given. An empty list matches
 * nothing (as Qdrant's `any: []` would), so the search is skipped: undefined is returned.
 */
export function searchFilter(tenant: string, filter: StoreFilter = {}): Schemas['Filter'] | undefined {
  const must: Schemas['FieldCondition'][] = [{ key: 'tenant', match: { value: tenant } }];
  const lists: [string, string[] | undefined][] = [
    ['collection_id', filter.collectionIds],
    ['node_type', filter.nodeTypes],
    ['shape', filter.shapes],
    ['source_kind', filter.sourceKinds],
  ];
  for (const [key, values] of lists) {
    if (values === undefined) continue;
    if (values.length === 0) return undefined;
    must.push({ key, match: { any: values } });
  }
  return { must };
}

function toHits(operation: string, response: Schemas['QueryResponse']): StoreHit[] {
  return response.points.map((p) => {
    const nodeId = p.payload?.node_id;
    if (typeof nodeId !== 'string')
      throw new QdrantStoreError(operation, `Qdrant ${operation}: point ${p.id} has no node_id in its payload`);
    return { id: String(p.id), nodeId, score: p.score };
  });
}

function checkCollectionShape(collection: string, info: Schemas['CollectionInfo'], identity: string, dimensions: number): void {
  const fail = (why: string) => {
    throw new QdrantStoreError('init', `Qdrant init: collection "${collection}" (embedder "${identity}") ${why}`);
  };
  const vectors = info.config.params.vectors as Record<string, Schemas['VectorParams'] | undefined> | undefined;
  const dense = vectors?.[DENSE_VECTOR];
  if (!dense || typeof dense !== 'object') return fail(`has no named vector "${DENSE_VECTOR}": it was not made by Doco`);
  if (dense.size !== dimensions) {
    return fail(
      `holds ${dense.size}-dimensional vectors but the embedder makes ${dimensions}: use another collectionPrefix or delete the collection`,
    );
  }
  if (dense.distance !== 'Cosine') return fail(`measures "${DENSE_VECTOR}" by ${dense.distance}, not Cosine`);
  const sparse = info.config.params.sparse_vectors?.[SPARSE_VECTOR];
  if (!sparse) return fail(`has no sparse vector "${SPARSE_VECTOR}": it was not made by Doco`);
  if (sparse.modifier !== 'idf') return fail(`has no IDF modifier on "${SPARSE_VECTOR}", so BM25 scores would ignore term rarity`);
}

function expectCompleted(operation: string, collection: string, result: Schemas['UpdateResult']): void {
  if (result.status !== 'completed') {
    throw new QdrantStoreError(operation, `Qdrant ${operation} on collection "${collection}" answered "${result.status}", not "completed"`);
  }
}

const statusOf = (err: unknown): number | undefined =>
  err && typeof err === 'object' && typeof (err as { status?: unknown }).status === 'number'
    ? (err as { status: number }).status
    : undefined;

/** The HTTP status and Qdrant's own error text (`{ status: { error } }`) when there is one. */
function describeFailure(err: unknown): string {
  const status = statusOf(err);
  if (status !== undefined) {
    const data = (err as { data?: unknown }).data as { status?: { error?: unknown } } | string | undefined;
    const text = typeof data === 'string' ? data : typeof data?.status?.error === 'string' ? data.status.error : (err as Error).message;
    return text ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
  }
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
  return String(err);
}
