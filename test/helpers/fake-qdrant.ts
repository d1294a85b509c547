// Stands in for a Qdrant server (REST API, https://api.qdrant.tech, as @qdrant/js-client-rest 1.18
// calls it): collections with named dense and sparse vectors, payload indexes, upsert, delete,
// count and the Query API — with real filtering, cosine and IDF-weighted sparse scoring — answered
// in Qdrant's envelope `{ result, status: 'ok', time }`, errors as `{ status: { error }, time }`.
import type { IncomingHttpHeaders } from 'node:http';
import {
  QdrantHttpError,
  badInput,
  cosine,
  filterHolds,
  isObject,
  onlyKeys,
  parseCreateCollection,
  parseDense,
  parsePointId,
  parseSparse,
  sparseScores,
  type CollectionConfig,
  type Json,
  type StoredPoint,
} from './fake-qdrant-model.js';
import { JsonServer } from './json-server.js';

export interface FakeQdrantRequest {
  method: string;
  /** e.g. "/collections/doco__x/points" */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeCollection {
  config: CollectionConfig;
  /** field name → the `field_schema` it was indexed with */
  indexes: Map<string, unknown>;
  points: Map<string | number, StoredPoint>;
}

type Route = (name: string, req: FakeQdrantRequest) => unknown;

const DEFAULT_HNSW = { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false };
const UPDATE_DONE = (operation_id: number) => ({ operation_id, status: 'completed' });

export class FakeQdrant {
  readonly requests: FakeQdrantRequest[] = [];
  readonly collections = new Map<string, FakeCollection>();
  /** Return a status (e.g. 500) to fail a request the way an unwell Qdrant would. */
  failWith: (req: FakeQdrantRequest) => number | undefined = () => undefined;
  private operations = 0;
  private server: JsonServer;
  private routes: [string, RegExp, Route][] = [
    ['GET', /^\/collections\/([^/]+)$/, (name) => this.collectionInfo(name)],
    ['PUT', /^\/collections\/([^/]+)$/, (name, req) => this.createCollection(name, req)],
    ['PUT', /^\/collections\/([^/]+)\/index$/, (name, req) => this.createIndex(name, req)],
    ['PUT', /^\/collections\/([^/]+)\/points$/, (name, req) => this.upsert(name, req)],
    ['POST', /^\/collections\/([^/]+)\/points\/delete$/, (name, req) => this.deletePoints(name, req)],
    ['POST', /^\/collections\/([^/]+)\/points\/query$/, (name, req) => this.query(name, req)],
    ['POST', /^\/collections\/([^/]+)\/points\/count$/, (name, req) => this.count(name, req)],
  ];

  /** With an apiKey, requests without a matching `api-key` header are refused with 401. */
  constructor(private readonly opts: { apiKey?: string } = {}) {
    this.server = new JsonServer(({ method, url, headers, raw }) => {
      const started = performance.now();
      const { status, body } = this.answer(method, url || '/', headers, raw);
      return { status, json: { ...body, time: (performance.now() - started) / 1000 } };
    });
  }

  /** The requests of one kind, e.g. `seen('PUT', '/points')` for every upsert. */
  seen(method: string, pathEnd: string): FakeQdrantRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.endsWith(pathEnd));
  }

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private answer(method: string, url: string, headers: IncomingHttpHeaders, raw: string): { status: number; body: Json } {
    const parsed = new URL(url, 'http://fake');
    try {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        throw new QdrantHttpError(400, 'Json deserialize error: expected value');
      }
      const req: FakeQdrantRequest = { method, path: parsed.pathname, query: parsed.searchParams, headers, body };
      this.requests.push(req);
      if (this.opts.apiKey !== undefined && headers['api-key'] !== this.opts.apiKey) {
        throw new QdrantHttpError(401, 'Must provide an API key or an Authorization bearer token');
      }
      const injected = this.failWith(req);
      if (injected !== undefined) throw new QdrantHttpError(injected, 'Service internal error: injected by the test');
      for (const [m, pattern, route] of this.routes) {
        const hit = pattern.exec(parsed.pathname);
        if (m === method && hit) return { status: 200, body: { result: route(decodeURIComponent(hit[1]!), req), status: 'ok' } };
      }
      throw new QdrantHttpError(404, `Not found: ${method} ${parsed.pathname}`);
    } catch (err) {
      if (!(err instanceof QdrantHttpError)) throw err;
      return { status: err.status, body: { status: { error: err.message } } };
    }
  }

  private collection(name: string): FakeCollection {
    const c = this.collections.get(name);
    if (!c) throw new QdrantHttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  }

  private bodyOf(req: FakeQdrantRequest): Json {
    if (!isObject(req.body)) throw new QdrantHttpError(400, 'Json deserialize error: expected an object body');
    return req.body;
  }

  private collectionInfo(name: string): unknown {
    const c = this.collection(name);
    const payload_schema: Json = {};
    for (const [field, schema] of c.indexes) {
      const points = [...c.points.values()].filter((p) => p.payload[field] !== undefined).length;
      payload_schema[field] = isObject(schema) ? { data_type: schema.type, params: schema, points } : { data_type: schema, points };
    }
    return {
      status: 'green',
      optimizer_status: 'ok',
      indexed_vectors_count: 0,
      points_count: c.points.size,
      segments_count: 1,
      config: {
        params: {
          vectors: c.config.vectors,
          shard_number: 1,
          replication_factor: 1,
          write_consistency_factor: 1,
          on_disk_payload: true,
          sparse_vectors: c.config.sparse_vectors,
        },
        hnsw_config: { ...DEFAULT_HNSW, ...c.config.hnsw_config },
        optimizer_config: { deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, flush_interval_sec: 5 },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
      },
      payload_schema,
    };
  }

  private createCollection(name: string, req: FakeQdrantRequest): unknown {
    if (!/^[A-Za-z0-9._-]{1,255}$/.test(name)) throw badInput(`collection name \`${name}\` has characters this fake does not allow`);
    if (this.collections.has(name)) throw new QdrantHttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
    this.collections.set(name, { config: parseCreateCollection(this.bodyOf(req)), indexes: new Map(), points: new Map() });
    return true;
  }

  private createIndex(name: string, req: FakeQdrantRequest): unknown {
    const c = this.collection(name);
    const body = this.bodyOf(req);
    onlyKeys(body, ['field_name', 'field_schema'], 'CreateFieldIndex');
    const schema = body.field_schema;
    if (typeof body.field_name !== 'string' || !body.field_name) throw badInput('field_name: expected a non-empty string');
    const types = ['keyword', 'integer', 'float', 'geo', 'text', 'bool', 'datetime', 'uuid'];
    if (isObject(schema)) {
      if (!types.includes(schema.type as string))
        throw new QdrantHttpError(400, `Format error in JSON body: unknown index type \`${String(schema.type)}\``);
      if (schema.type === 'keyword') onlyKeys(schema, ['type', 'is_tenant', 'on_disk', 'enable_hnsw'], 'KeywordIndexParams');
      if (schema.is_tenant !== undefined && typeof schema.is_tenant !== 'boolean') throw badInput('is_tenant: expected a boolean');
    } else if (!types.includes(schema as string)) {
      throw new QdrantHttpError(400, `Format error in JSON body: unknown field_schema ${JSON.stringify(schema)}`);
    }
    c.indexes.set(body.field_name, schema);
    return UPDATE_DONE(++this.operations);
  }

  private parsePoint(c: FakeCollection, raw: unknown, version: number): StoredPoint {
    if (!isObject(raw)) throw new QdrantHttpError(400, 'Format error in JSON body: point: expected an object');
    onlyKeys(raw, ['id', 'vector', 'payload'], 'PointStruct');
    const id = parsePointId(raw.id);
    if (!isObject(raw.vector)) throw badInput('vector: this fake takes named vectors only');
    const point: StoredPoint = { id, version, dense: new Map(), sparse: new Map(), payload: {} };
    for (const [vname, v] of Object.entries(raw.vector)) {
      const dense = c.config.vectors[vname];
      if (dense) point.dense.set(vname, parseDense(v, dense.size, `vector.${vname}`));
      else if (c.config.sparse_vectors[vname]) point.sparse.set(vname, parseSparse(v, `vector.${vname}`));
      else throw badInput(`Not existing vector name error: ${vname}`);
    }
    if (raw.payload !== undefined && raw.payload !== null) {
      if (!isObject(raw.payload)) throw new QdrantHttpError(400, 'Format error in JSON body: payload: expected an object');
      point.payload = raw.payload;
    }
    return point;
  }

  private upsert(name: string, req: FakeQdrantRequest): unknown {
    const c = this.collection(name);
    const body = this.bodyOf(req);
    onlyKeys(body, ['points'], 'PointsList (the fake takes no batch form)');
    if (!Array.isArray(body.points)) throw new QdrantHttpError(400, 'Format error in JSON body: points: expected an array');
    const version = ++this.operations;
    // Validate every point before storing any, as Qdrant refuses the whole request.
    const points = body.points.map((p) => this.parsePoint(c, p, version));
    for (const p of points) c.points.set(p.id, p);
    return UPDATE_DONE(version);
  }

  private deletePoints(name: string, req: FakeQdrantRequest): unknown {
    const c = this.collection(name);
    const body = this.bodyOf(req);
    onlyKeys(body, ['points', 'filter'], 'PointsSelector');
    if (Array.isArray(body.points) === (body.filter !== undefined)) throw badInput('give exactly one of `points` or `filter`');
    if (Array.isArray(body.points)) for (const id of body.points.map(parsePointId)) c.points.delete(id);
    else for (const p of [...c.points.values()]) if (filterHolds(p, body.filter)) c.points.delete(p.id);
    return UPDATE_DONE(++this.operations);
  }

  private count(name: string, req: FakeQdrantRequest): unknown {
    const c = this.collection(name);
    const body = this.bodyOf(req);
    onlyKeys(body, ['filter', 'exact'], 'CountRequest');
    return { count: [...c.points.values()].filter((p) => filterHolds(p, body.filter)).length };
  }

  private query(name: string, req: FakeQdrantRequest): unknown {
    const c = this.collection(name);
    const body = this.bodyOf(req);
    onlyKeys(
      body,
      ['query', 'using', 'filter', 'limit', 'with_payload', 'with_vector', 'score_threshold'],
      'QueryRequest (the fake has no prefetch)',
    );
    if (typeof body.using !== 'string') throw badInput('this fake needs `using`: it keeps named vectors only');
    const limit = body.limit ?? 10;
    if (!Number.isInteger(limit) || (limit as number) < 1) throw badInput('limit: Validation error: range: value must be at least 1');
    const query = isObject(body.query) && 'nearest' in body.query ? body.query.nearest : body.query;
    const all = [...c.points.values()];
    const candidates = new Set(all.filter((p) => filterHolds(p, body.filter)));
    let scored: [StoredPoint, number][];
    const dense = c.config.vectors[body.using];
    const sparse = c.config.sparse_vectors[body.using];
    if (dense) {
      const q = parseDense(query, dense.size, 'query');
      if (dense.distance !== 'Cosine') throw badInput('this fake scores Cosine only');
      scored = [...candidates]
        .filter((p) => p.dense.has(body.using as string))
        .map((p) => [p, cosine(p.dense.get(body.using as string)!, q)]);
    } else if (sparse) {
      const q = parseSparse(query, 'query');
      scored = [...sparseScores(all, body.using, q, sparse.modifier === 'idf')].filter(([p]) => candidates.has(p));
    } else {
      throw badInput(`Not existing vector name error: ${body.using}`);
    }
    const threshold = typeof body.score_threshold === 'number' ? body.score_threshold : -Infinity;
    scored = scored
      .filter(([, s]) => s >= threshold)
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit as number);
    return { points: scored.map(([p, score]) => ({ id: p.id, version: p.version, score, ...this.payloadFor(p, body.with_payload) })) };
  }

  private payloadFor(p: StoredPoint, withPayload: unknown): { payload?: Json } {
    if (withPayload === undefined || withPayload === false) return {};
    if (withPayload === true) return { payload: p.payload };
    if (Array.isArray(withPayload) && withPayload.every((k) => typeof k === 'string')) {
      return { payload: Object.fromEntries(withPayload.filter((k) => k in p.payload).map((k) => [k, p.payload[k]])) };
    }
    throw new QdrantHttpError(400, 'Format error in JSON body: with_payload: expected a boolean or a list of keys');
  }
}
