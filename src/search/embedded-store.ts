// The default vector store: dense + BM25 in this process (EmbeddedIndex), persisted under
// $DOCO_HOME/index/<embedder identity>.snapshot (embedded-snapshot.ts: replaced whole or not at
// all), which records the highest chunk sequence it contains, so a restart loads it and catches
// up from Postgres instead of re-embedding.
// Single-process by nature: scaling out needs Qdrant.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { noCrash, type CrashHook } from '../runtime/crash-point.js';
import { EmbeddedIndex } from './embedded-index.js';
import { readSnapshot, writeSnapshot, type LoadedSnapshot } from './embedded-snapshot.js';
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

const safeName = (identity: string) => identity.replace(/[^A-Za-z0-9._-]+/g, '_');

export interface EmbeddedStoreOptions {
  /** Where snapshots live ($DOCO_HOME/index); none: memory only. */
  dir?: string;
  /** The crash suite's hook (src/runtime/crash-point.ts). */
  crash?: CrashHook;
}

export function embeddedStore(opts: EmbeddedStoreOptions = {}): EmbeddedStore {
  let index: EmbeddedIndex | undefined;
  let identity = '';
  const ready = () => {
    if (!index) throw new Error('embedded store used before init()');
    return index;
  };
  const snapshotFile = () => (opts.dir ? path.join(opts.dir, `${safeName(identity)}.snapshot`) : undefined);

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
      if (!query.alone) await new Promise((resolve) => setTimeout(resolve, 3));
      return { dense: query.sparseOnly ? [] : idx.searchDense(query), sparse: idx.searchSparse(query) };
    },
    async count() {
      return ready().count;
    },
    ids() {
      return ready().allIds();
    },
    async loadSnapshot() {
      const file = snapshotFile();
      const idx = ready();
      if (!file) return false;
      // A missing, damaged or foreign snapshot is no snapshot: the caller rebuilds from Postgres.
      let loaded: LoadedSnapshot | undefined;
      try {
        loaded = await readSnapshot(file, identity, idx.dims);
      } catch {
        return false;
      }
      if (!loaded) return false;
      index = loaded.index;
      store.watermark = loaded.watermark;
      return true;
    },
    async save() {
      const file = snapshotFile();
      const idx = ready();
      if (!file) return;
      await writeSnapshot(file, idx, identity, store.watermark, opts.crash ?? noCrash);
      // The directory the first format kept per identity, superseded by the file above.
      await rm(path.join(opts.dir!, safeName(identity)), { recursive: true, force: true });
    },
    async close() {},
  };
  return store;
}
