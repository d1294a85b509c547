// GET /search: hybrid search over records (dense + BM25 from the vector store, Postgres full
// text), filtered by type, shape and collection, one item per record, best first.
import * as v from 'valibot';
import type { Sql, Db } from '../db/connect.js';
import { NODE_TYPES } from '../db/schema.js';
import { explainMatch } from './because.js';
import { loadCandidates } from './candidates.js';
import { fuseByScore, sortByScore } from './fuse.js';
import { scoredSeedLists } from './retrieve.js';
import { fulltextSeeds, indexSeeds } from './retrievers.js';
import type { Item } from './item.js';
import { getCollection } from '../graph/collections.js';
import { SlugSchema } from '../graph/schemas.js';
import type { Embedder } from '../providers/embedder.js';
import type { StoreFilter, VectorStore } from '../providers/vector/port.js';

const intFromString = (min: number, max: number) =>
  v.pipe(v.union([v.string(), v.number()]), v.transform(Number), v.integer('must be a whole number'), v.minValue(min), v.maxValue(max));

export const SearchQuerySchema = v.object({
  q: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(4000)),
  type: v.optional(v.picklist(NODE_TYPES, `must be one of ${NODE_TYPES.join(', ')}`)),
  shape: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_-]{0,62}$/, 'must be a shape name such as architecturePrinciple'))),
  collection: v.optional(SlugSchema),
  limit: v.optional(intFromString(1, 100), 10),
  /** Characters of text per result: a snippet (400, what the seed's consult call pastes) unless asked for more. */
  text_chars: v.optional(intFromString(50, 5000), 400),
});
export type SearchQuery = v.InferOutput<typeof SearchQuerySchema>;

export interface SearchDeps {
  sql: Sql;
  db: Db;
  embedder: Embedder;
  store: VectorStore;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** `scope` narrows the search further for callers with a fixed corpus (the docs search: doc shapes). */
export async function searchRecords(
  deps: SearchDeps,
  workspaceId: string,
  query: SearchQuery,
  scope: Pick<StoreFilter, 'shapes' | 'nodeTypes'> = {},
): Promise<{ results: Item[] }> {
  const collectionIds = query.collection ? [(await getCollection(deps.db, workspaceId, query.collection)).id] : undefined;
  const filter: StoreFilter = {
    ...scope,
    ...(query.type ? { nodeTypes: [query.type] } : {}),
    ...(query.shape ? { shapes: [query.shape] } : {}),
    ...(collectionIds ? { collectionIds } : {}),
  };
  const depth = Math.max(50, query.limit * 3);
  const [vector, fulltext] = await Promise.all([
    indexSeeds(deps, workspaceId, query.q, filter, depth),
    fulltextSeeds(deps.sql, workspaceId, query.q, filter, depth),
  ]);
  const scores = fuseByScore(scoredSeedLists([...vector, fulltext]));
  const order = sortByScore(scores);
  const rows = await loadCandidates(deps.sql, workspaceId, order.slice(0, depth));
  const results: Item[] = [];
  for (const id of order) {
    const row = rows.get(id);
    if (!row || row.lifecycle === 'retired') continue;
    results.push({
      id,
      node_type: row.node_type,
      collection: row.collection,
      lifecycle: row.lifecycle,
      title: row.title,
      text: clip(row.prose || row.title, query.text_chars),
      expanded: true,
      because: explainMatch(query.q, `${row.title}\n${row.prose}`) ?? 'similar to the query',
      score: Number((scores.get(id) ?? 0).toFixed(6)),
      updated_at: row.updated_at.toISOString(),
      source: {
        kind: (typeof row.body.source_kind === 'string' ? row.body.source_kind : 'record') as Item['source']['kind'],
        pointer: (row.body.pointer as Record<string, unknown>) ?? {},
      },
    });
    if (results.length === query.limit) break;
  }
  return { results };
}
