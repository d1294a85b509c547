// The default vector store: dense + BM25 in this process (EmbeddedIndex), persisted under
// $DOCO_HOME/index/<embedder identity>/ as a snapshot that records the highest chunk sequence
// it contains, so a restart loads it and catches up from Postgres instead of re-embedding.
// Single-process by nature: scaling out needs Qdrant.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EmbeddedIndex, type PointMeta } from './embedded-index.js';
import type { ChunkPoint, StoreHit, StoreQuery, VectorStore } from './vector-store.js';

export interface EmbeddedStore extends VectorStore {
  readonly kind: 'embedded';
  /** The highest chunk `seq` whose state the index reflects. */
  watermark: number;
  ids(): string[];
  /** Loads the snapshot for the identity given to init(); false when there is none or it does not fit. */
  loadSnapshot(): Promise<boolean>;
  save(): Promise<void>;
}

interface SnapshotMeta {
  format: 1;
  identity: string;
  dims: number;
  watermark: number;
  count: number;
}

const FORMAT = 1;
const safeName = (identity: string) => identity.replace(/[^A-Za-z0-9._-]+/g, '_');

/** The snapshot in `dir` as an index, or undefined when it does not fit; throws when a file is missing or unreadable. */
async function readSnapshot(dir: string, identity: string, dims: number): Promise<{ fresh: EmbeddedIndex; watermark: number } | undefined> {
  const meta = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')) as SnapshotMeta;
  if (meta.format !== FORMAT || meta.identity !== identity || meta.dims !== dims || !Number.isInteger(meta.count)) return undefined;
  const [pointsJson, vectorsBuf, offsetsBuf, termsBuf, weightsBuf] = await Promise.all(
    ['points.json', 'vectors.f32', 'sparse-offsets.u32', 'sparse-terms.u32', 'sparse-weights.f32'].map((f) => readFile(path.join(dir, f))),
  );
  if ([vectorsBuf, offsetsBuf, termsBuf, weightsBuf].some((b) => b!.byteLength % 4 !== 0)) return undefined;
  const points = JSON.parse(pointsJson!.toString('utf8')) as Record<keyof PointMeta, string[]>;
  const vectors = new Float32Array(vectorsBuf!.buffer, vectorsBuf!.byteOffset, vectorsBuf!.byteLength / 4);
  const offsets = new Uint32Array(offsetsBuf!.buffer, offsetsBuf!.byteOffset, offsetsBuf!.byteLength / 4);
  const terms = new Uint32Array(termsBuf!.buffer, termsBuf!.byteOffset, termsBuf!.byteLength / 4);
  const weights = new Float32Array(weightsBuf!.buffer, weightsBuf!.byteOffset, weightsBuf!.byteLength / 4);
  const columns: (keyof PointMeta)[] = ['id', 'nodeId', 'tenant', 'collectionId', 'nodeType', 'shape', 'sourceKind'];
  if (columns.some((c) => !Array.isArray(points[c]) || points[c].length !== meta.count)) return undefined;
  if (vectors.length !== meta.count * meta.dims || offsets.length !== meta.count + 1) return undefined;
  if (offsets[0] !== 0 || offsets[meta.count] !== terms.length || weights.length !== terms.length) return undefined;
  const fresh = new EmbeddedIndex(meta.dims, Math.max(1024, meta.count));
  for (let i = 0; i < meta.count; i++) {
    const pm: PointMeta = { id: points.id[i]!, nodeId: points.nodeId[i]!, tenant: points.tenant[i]!, collectionId: points.collectionId[i]!, nodeType: points.nodeType[i]!, shape: points.shape[i]!, sourceKind: points.sourceKind[i]! };
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    if (to < from) return undefined;
    fresh.addPoint(pm, vectors.slice(i * meta.dims, (i + 1) * meta.dims), { indices: terms.subarray(from, to), values: weights.subarray(from, to) });
  }
  return { fresh, watermark: meta.watermark };
}

export function embeddedStore(opts: { dir?: string } = {}): EmbeddedStore {
  let index: EmbeddedIndex | undefined;
  let identity = '';
  const ready = () => {
    if (!index) throw new Error('embedded store used before init()');
    return index;
  };
  const snapshotDir = () => (opts.dir ? path.join(opts.dir, safeName(identity)) : undefined);

  const store: EmbeddedStore = {
    kind: 'embedded',
    watermark: 0,
    async init(embedderIdentity, dimensions) {
      if (index && identity === embedderIdentity && index.dims === dimensions) return;
      identity = embedderIdentity;
      index = new EmbeddedIndex(dimensions);
      store.watermark = 0;
    },
    async upsert(points: ChunkPoint[]) {
      const idx = ready();
      for (const p of points) idx.upsert(p);
    },
    async remove(ids: string[]) {
      const idx = ready();
      for (const id of ids) idx.remove(id);
      // Tombstones cost scan time: compact once they are a third of the index.
      if (idx.tombstones > 1000 && idx.tombstones * 3 > idx.size) index = idx.compact();
    },
    async search(query: StoreQuery): Promise<{ dense: StoreHit[]; sparse: StoreHit[] }> {
      const idx = ready();
      // The scans below hold the thread for tens of milliseconds on a large index: give the
      // brief's SQL retrievers a moment to reach Postgres first, so they run meanwhile, not
      // after (measured: a bare setImmediate is not enough for their queries to go out).
      await new Promise((resolve) => setTimeout(resolve, 3));
      return { dense: query.sparseOnly ? [] : idx.searchDense(query), sparse: idx.searchSparse(query) };
    },
    async count() {
      return ready().count;
    },
    ids() {
      return ready().allIds();
    },
    async loadSnapshot() {
      const dir = snapshotDir();
      const idx = ready();
      if (!dir) return false;
      // A missing, partial or damaged snapshot is no snapshot: the caller rebuilds from Postgres.
      let loaded: { fresh: EmbeddedIndex; watermark: number } | undefined;
      try {
        loaded = await readSnapshot(dir, identity, idx.dims);
      } catch {
        return false;
      }
      if (!loaded) return false;
      index = loaded.fresh;
      store.watermark = loaded.watermark;
      return true;
    },
    async save() {
      const dir = snapshotDir();
      const idx = ready();
      if (!dir) return;
      const points: Record<keyof PointMeta, string[]> = { id: [], nodeId: [], tenant: [], collectionId: [], nodeType: [], shape: [], sourceKind: [] };
      const vectors = new Float32Array(idx.count * idx.dims);
      const offsets = new Uint32Array(idx.count + 1);
      const terms: number[] = [];
      const weights: number[] = [];
      let i = 0;
      for (const p of idx.livePoints()) {
        for (const k of Object.keys(points) as (keyof PointMeta)[]) points[k].push(p.meta[k]);
        vectors.set(p.vector, i * idx.dims);
        terms.push(...p.sparse.indices);
        weights.push(...p.sparse.values);
        offsets[++i] = terms.length;
      }
      const meta: SnapshotMeta = { format: FORMAT, identity, dims: idx.dims, watermark: store.watermark, count: i };
      // Written beside, then swapped in: a crash mid-save leaves the previous snapshot whole.
      const tmp = `${dir}.tmp-${process.pid}`;
      await rm(tmp, { recursive: true, force: true });
      await mkdir(tmp, { recursive: true });
      await Promise.all([
        writeFile(path.join(tmp, 'points.json'), JSON.stringify(points)),
        writeFile(path.join(tmp, 'vectors.f32'), Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength)),
        writeFile(path.join(tmp, 'sparse-offsets.u32'), Buffer.from(offsets.buffer)),
        writeFile(path.join(tmp, 'sparse-terms.u32'), Buffer.from(new Uint32Array(terms).buffer)),
        writeFile(path.join(tmp, 'sparse-weights.f32'), Buffer.from(new Float32Array(weights).buffer)),
      ]);
      await writeFile(path.join(tmp, 'meta.json'), JSON.stringify(meta));
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
    },
    async close() {},
  };
  return store;
}
