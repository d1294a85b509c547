// The fake Qdrant's data model: request validation (400s worded like Qdrant's), payload filters,
// cosine and IDF-weighted sparse scoring. The HTTP side is in fake-qdrant.ts.
/** A request the fake refuses, answered as `{ status: { error } }` with this HTTP status. */
export class QdrantHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badInput = (message: string) => new QdrantHttpError(400, `Wrong input: ${message}`);
const formatError = (message: string) => new QdrantHttpError(400, `Format error in JSON body: ${message}`);

export type Json = Record<string, unknown>;
export interface Sparse {
  indices: number[];
  values: number[];
}
export interface DenseParams {
  size: number;
  distance: 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';
  on_disk?: boolean;
  hnsw_config?: Json;
}
export interface CollectionConfig {
  vectors: Record<string, DenseParams>;
  sparse_vectors: Record<string, { modifier?: 'none' | 'idf'; index?: Json }>;
  hnsw_config?: Json;
}
export interface StoredPoint {
  id: string | number;
  version: number;
  dense: Map<string, number[]>;
  sparse: Map<string, Sparse>;
  payload: Json;
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Refuses fields the fake does not know, so a misspelt option fails a test instead of vanishing. */
export function onlyKeys(obj: Json, allowed: string[], where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw formatError(`${where}: unknown field \`${key}\`, expected one of ${allowed.join(', ')}`);
  }
}

const positiveInt = (v: unknown) => Number.isInteger(v) && (v as number) > 0;
const DISTANCES = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];
const HNSW_KEYS = ['m', 'ef_construct', 'full_scan_threshold', 'max_indexing_threads', 'on_disk', 'payload_m'];

function checkHnsw(v: unknown, where: string): Json | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw formatError(`${where}: expected an object`);
  onlyKeys(v, HNSW_KEYS, where);
  for (const k of ['m', 'ef_construct']) {
    if (v[k] !== undefined && !(Number.isInteger(v[k]) && (v[k] as number) >= 0))
      throw formatError(`${where}.${k}: expected an unsigned integer`);
  }
  return v;
}

/** PUT /collections/{name} body → its config (named vectors only: the fake keeps no unnamed one). */
export function parseCreateCollection(body: unknown): CollectionConfig {
  if (!isObject(body)) throw formatError('expected an object');
  onlyKeys(
    body,
    ['vectors', 'sparse_vectors', 'hnsw_config', 'on_disk_payload', 'shard_number', 'replication_factor', 'optimizers_config'],
    'CreateCollection',
  );
  const vectors: Record<string, DenseParams> = {};
  if (body.vectors !== undefined) {
    if (!isObject(body.vectors) || 'size' in body.vectors)
      throw badInput('this fake keeps named vectors only (`vectors: { name: {...} }`)');
    for (const [name, p] of Object.entries(body.vectors)) {
      if (!isObject(p)) throw formatError(`vectors.${name}: expected an object`);
      onlyKeys(p, ['size', 'distance', 'on_disk', 'hnsw_config', 'datatype'], `vectors.${name}`);
      if (!positiveInt(p.size)) throw badInput(`vectors.${name}.size: Validation error: range: value must be at least 1`);
      if (!DISTANCES.includes(p.distance as string))
        throw formatError(`vectors.${name}.distance: unknown variant \`${String(p.distance)}\``);
      if (p.on_disk !== undefined && typeof p.on_disk !== 'boolean') throw formatError(`vectors.${name}.on_disk: expected a boolean`);
      checkHnsw(p.hnsw_config, `vectors.${name}.hnsw_config`);
      vectors[name] = p as unknown as DenseParams;
    }
  }
  const sparse_vectors: CollectionConfig['sparse_vectors'] = {};
  if (body.sparse_vectors !== undefined && body.sparse_vectors !== null) {
    if (!isObject(body.sparse_vectors)) throw formatError('sparse_vectors: expected an object');
    for (const [name, p] of Object.entries(body.sparse_vectors)) {
      if (!isObject(p)) throw formatError(`sparse_vectors.${name}: expected an object`);
      onlyKeys(p, ['modifier', 'index'], `sparse_vectors.${name}`);
      if (p.modifier !== undefined && p.modifier !== 'none' && p.modifier !== 'idf')
        throw formatError(`sparse_vectors.${name}.modifier: unknown variant \`${String(p.modifier)}\``);
      if (name in vectors) throw badInput(`vector name \`${name}\` is both dense and sparse`);
      sparse_vectors[name] = p as CollectionConfig['sparse_vectors'][string];
    }
  }
  return { vectors, sparse_vectors, hnsw_config: checkHnsw(body.hnsw_config, 'hnsw_config') };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A point id: an unsigned integer or a UUID (Qdrant answers UUIDs lowercased). */
export function parsePointId(v: unknown): string | number {
  if (Number.isInteger(v) && (v as number) >= 0) return v as number;
  if (typeof v === 'string' && UUID.test(v)) return v.toLowerCase();
  throw formatError(`Unable to parse UUID: ${JSON.stringify(v)}`);
}

export function parseSparse(v: unknown, where: string): Sparse {
  if (!isObject(v) || !Array.isArray(v.indices) || !Array.isArray(v.values)) throw formatError(`${where}: expected { indices, values }`);
  onlyKeys(v, ['indices', 'values'], where);
  const { indices, values } = v as { indices: unknown[]; values: unknown[] };
  if (!indices.every((i) => Number.isInteger(i) && (i as number) >= 0 && (i as number) <= 0xffffffff))
    throw formatError(`${where}.indices: expected u32 values`);
  if (!values.every((x) => typeof x === 'number' && Number.isFinite(x))) throw formatError(`${where}.values: expected numbers`);
  if (indices.length !== values.length) throw badInput(`${where}: indices and values must have the same length`);
  if (new Set(indices).size !== indices.length) throw badInput(`${where}: indices must be unique`);
  return { indices: indices as number[], values: values as number[] };
}

export function parseDense(v: unknown, size: number, where: string): number[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw formatError(`${where}: expected an array of numbers`);
  if (v.length !== size) throw badInput(`Vector dimension error: expected dim: ${size}, got ${v.length}`);
  return v as number[];
}

// ---- filters ----------------------------------------------------------------------------

const asList = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

function matchValue(stored: unknown, match: Json): boolean {
  const values = Array.isArray(stored) ? stored : [stored];
  if ('value' in match) {
    if (!['string', 'number', 'boolean'].includes(typeof match.value))
      throw formatError('match.value: expected a string, number or boolean');
    return values.some((x) => x === match.value);
  }
  const list: unknown = match.any ?? match.except;
  if (!Array.isArray(list) || !(list.every((x) => typeof x === 'string') || list.every((x) => typeof x === 'number'))) {
    throw formatError('match.any / match.except: expected a list of strings or of integers');
  }
  const listed = list as unknown[];
  if ('any' in match) return values.some((x) => listed.includes(x));
  return values.every((x) => x !== undefined && !listed.includes(x));
}

function conditionHolds(point: StoredPoint, cond: unknown): boolean {
  if (!isObject(cond)) throw formatError('filter condition: expected an object');
  if ('must' in cond || 'should' in cond || 'must_not' in cond) return filterHolds(point, cond);
  if ('has_id' in cond) return asList(cond.has_id).map(parsePointId).includes(point.id);
  if (typeof cond.key !== 'string') throw formatError('filter condition: expected a field condition with a `key`');
  onlyKeys(cond, ['key', 'match'], `condition on ${cond.key}`);
  if (!isObject(cond.match)) throw badInput(`condition on ${cond.key}: this fake supports \`match\` only`);
  onlyKeys(cond.match, ['value', 'any', 'except'], `condition on ${cond.key}.match`);
  return matchValue(point.payload[cond.key], cond.match);
}

/** Qdrant's boolean filter: every `must`, at least one `should` (when any), no `must_not`. */
export function filterHolds(point: StoredPoint, filter: unknown): boolean {
  if (filter === undefined || filter === null) return true;
  if (!isObject(filter)) throw formatError('filter: expected an object');
  onlyKeys(filter, ['must', 'should', 'must_not'], 'filter');
  const should = asList(filter.should);
  // Evaluate every condition (no short-circuit) so a malformed one is refused even when an earlier one fails.
  const must = asList(filter.must).map((c) => conditionHolds(point, c));
  const any = should.map((c) => conditionHolds(point, c));
  const not = asList(filter.must_not).map((c) => conditionHolds(point, c));
  return must.every(Boolean) && (should.length === 0 || any.some(Boolean)) && !not.some(Boolean);
}

// ---- scoring ----------------------------------------------------------------------------

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * The IDF modifier's weight as Qdrant documents it (Concepts → Indexing → "IDF Modifier",
 * https://qdrant.tech/documentation/concepts/indexing/#idf-modifier):
 * IDF(q) = ln((N − n(q) + 0.5) / (n(q) + 0.5) + 1), N the documents in the collection, n(q)
 * those with a non-zero value for element q. Written here from the documentation, not taken
 * from src/, so the fake checks the production code instead of agreeing with it by construction.
 */
export function qdrantIdf(documents: number, withElement: number): number {
  return Math.log((documents - withElement + 0.5) / (withElement + 0.5) + 1);
}

/**
 * Sparse dot product; with the `idf` modifier each query weight is multiplied by the element's
 * IDF over every point of the collection holding this sparse vector (Qdrant's collection
 * statistics, not the filtered subset). Points sharing no index with the query are not hits.
 */
export function sparseScores(points: StoredPoint[], name: string, query: Sparse, idf: boolean): Map<StoredPoint, number> {
  const holders = points.filter((p) => p.sparse.has(name));
  const nonZeroAt = (p: StoredPoint, index: number) => {
    const v = p.sparse.get(name)!;
    const at = v.indices.indexOf(index);
    return at >= 0 && v.values[at] !== 0;
  };
  const weights = query.indices.map((index, k) => {
    if (!idf) return query.values[k]!;
    const n = holders.filter((p) => nonZeroAt(p, index)).length;
    return query.values[k]! * qdrantIdf(holders.length, n);
  });
  const scores = new Map<StoredPoint, number>();
  for (const p of holders) {
    const doc = p.sparse.get(name)!;
    let score = 0;
    let shared = false;
    query.indices.forEach((index, k) => {
      const at = doc.indices.indexOf(index);
      if (at < 0) return;
      shared = true;
      score += weights[k]! * doc.values[at]!;
    });
    if (shared) scores.set(p, score);
  }
  return scores;
}
