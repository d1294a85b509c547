// The default vector store: dense + BM25 in this process (EmbeddedIndex), persisted under
// $DOCO_HOME/index/<embedder identity>.snapshot (snapshot.ts: replaced whole or not at all),
// which records the highest chunk sequence it contains, so a restart loads it and catches up
// from Postgres instead of re-embedding. The index's int8 vectors live in an unlinked scratch
// file in the same folder (vector-rows.ts).
// Single-process by nature: scaling out needs Qdrant. The dense sketch scan runs on worker
// threads when there are any (scan-pool.ts), in this thread when they fail or are slow.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { noCrash, type CrashHook } from '../../../lib/crash-point.js';
import { mapYielding } from '../../../lib/yield-often.js';
import { EmbeddedIndex, type EmbeddedIndexOptions } from './memory-index.js';
import { readSnapshot, writeSnapshot, type LoadedSnapshot, type SnapshotOrigin } from './snapshot.js';
import { scanPool, type ScanPool } from './scan-pool.js';
import { scanSketchRange, type Shortlist } from './sketch-scan.js';
import type { ChunkPoint, StoreAnswer, StoreQuery, VectorStore } from '../port.js';

export interface EmbeddedStore extends VectorStore {
  readonly kind: 'embedded';
  /** The highest chunk `seq` whose state the index reflects. */
  watermark: number;
  /** The database the index reflects (doco.database_identity), written into its snapshot. */
  database: string | undefined;
  ids(): string[];
  /**
   * Loads the snapshot for the identity given to init(); false when there is none, it does not fit
   * the embedder, or `fits` says it was not made from this database as it is.
   */
  loadSnapshot(fits?: (origin: SnapshotOrigin) => boolean): Promise<boolean>;
  save(): Promise<void>;
  /** Starts the dense scan's workers when there are any and the index is large enough to use them; resolves once they are ready. */
  warmUp(): Promise<void>;
}

const safeName = (identity: string) => identity.replace(/[^A-Za-z0-9._-]+/g, '_');

export interface EmbeddedStoreOptions {
  /** Where snapshots live ($DOCO_HOME/index); none: memory only. */
  dir?: string;
  /** The crash suite's hook (src/lib/crash-point.ts). */
  crash?: CrashHook;
  /** Worker threads for the dense scan (DOCO_SCAN_THREADS); 0 (the default here): scan in this thread. */
  scanThreads?: number;
  /** Smaller indexes scan in this thread: a few thousand rows cost less than a worker's round trip. */
  minScanRows?: number;
  /** How long to wait for the workers before scanning here instead (scan-pool.ts). */
  scanWaitMs?: number;
  /** The scan workers' code (tests swap in workers that fail). */
  scanWorkerSource?: string;
  /** false: scan the sketches in JavaScript, as where WebAssembly is unavailable (tests). */
  wasm?: boolean;
  /** How long an upsert indexes before it yields (SLICE_MS); tests that need a batch indexed in one go give Infinity. */
  upsertSliceMs?: number;
  /** How much of the vectors stays in memory before they move to a file in `dir` (VECTORS_IN_MEMORY_BYTES); tests give 0 to read them from the file. */
  vectorsInMemoryBytes?: number;
}

/** Below this many rows a scan in this thread (a millisecond or so) costs about what posting it to workers does. */
export const MIN_THREADED_SCAN_ROWS = 8192;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tenths = (ms: number) => Math.round(ms * 10) / 10;

export function embeddedStore(opts: EmbeddedStoreOptions = {}): EmbeddedStore {
  let index: EmbeddedIndex | undefined;
  let identity = '';
  const ready = () => {
    if (!index) throw new Error('embedded store used before init()');
    return index;
  };
  const snapshotFile = () => (opts.dir ? path.join(opts.dir, `${safeName(identity)}.snapshot`) : undefined);
  // With a folder, the index keeps its int8 vectors in a file there once they pass a bound, not in memory (vector-rows.ts).
  const indexOptions: EmbeddedIndexOptions = {
    ...(opts.wasm === undefined ? {} : { wasm: opts.wasm }),
    ...(opts.dir ? { vectorDir: opts.dir } : {}),
    ...(opts.vectorsInMemoryBytes === undefined ? {} : { vectorsInMemoryBytes: opts.vectorsInMemoryBytes }),
  };
  const threads = opts.scanThreads ?? 0;
  const minScanRows = opts.minScanRows ?? MIN_THREADED_SCAN_ROWS;
  let pool: ScanPool | undefined;
  const workers = () =>
    (pool ??= scanPool({
      threads,
      ...(opts.scanWaitMs ? { waitMs: opts.scanWaitMs } : {}),
      ...(opts.scanWorkerSource ? { source: opts.scanWorkerSource } : {}),
    }));
  const warmUp = async () => {
    if (threads > 0 && index && index.size >= minScanRows) await workers().ready();
  };
  // Once the index is large enough, so the first brief finds the workers ready; a worker that
  // fails to start shows at the first scan that needs it, as a warning.
  const warmUpSoon = () => void warmUp().catch(() => {});

  // Upserts and removals run one at a time, each to its end: they yield to the event loop midway
  // (a drain's batch, a compaction), and a write made to an index while a removal copies it
  // without its tombstones would be lost when the copy takes its place.
  let writing: Promise<unknown> = Promise.resolve();
  const oneWriteAtATime = <T>(write: () => Promise<T>): Promise<T> => {
    const run = writing.then(write);
    writing = run.catch(() => {});
    return run;
  };
  const store: EmbeddedStore = {
    kind: 'embedded',
    watermark: 0,
    database: undefined,
    async init(embedderIdentity, dimensions) {
      if (index && identity === embedderIdentity && index.dims === dimensions) return;
      identity = embedderIdentity;
      index = new EmbeddedIndex(dimensions, undefined, indexOptions);
      store.watermark = 0;
    },
    upsert: (points: ChunkPoint[]) =>
      oneWriteAtATime(async () => {
        // In slices (tokenizing and posting a drain's batch takes tens of milliseconds).
        await mapYielding(points, (p) => ready().upsert(p), opts.upsertSliceMs);
        warmUpSoon();
      }),
    remove: (ids: string[]) =>
      oneWriteAtATime(async () => {
        const idx = ready();
        for (const id of ids) idx.remove(id);
        // Tombstones cost scan time: compact once they are a third of the index. In slices (a
        // compaction of 100k replaced points held the thread for seconds: docs/eval.md, "Session
        // 37"); searches read the old index meanwhile.
        if (idx.tombstones > 1000 && idx.tombstones * 3 > idx.size) {
          const compacted = await idx.compactYielding(opts.upsertSliceMs);
          if (index === idx) index = compacted;
        }
      }),
    async search(query: StoreQuery): Promise<StoreAnswer> {
      // Everything below uses this index even if a compaction replaces it meanwhile: the
      // shortlist's slots are its slots.
      const idx = ready();
      const scan = query.sparseOnly ? undefined : idx.denseScan(query);
      const sketch = scan?.kind === 'sketch' ? scan : undefined;
      // The workers start at once; their answer (or why there is none) is read after BM25.
      const threaded =
        sketch && threads > 0 && sketch.size >= minScanRows
          ? workers()
              .scan(sketch.job, sketch.size)
              .catch((err: Error) => err)
          : undefined;
      // The work below holds this thread for milliseconds to tens of them on a large index: give
      // the brief's SQL retrievers a moment to reach Postgres first, so they run meanwhile, not
      // after. A bare setImmediate is not enough for their queries to go out, and no pause at all
      // made briefs slower; 1 ms is as good as any longer wait and shorter than the 3 ms this was
      // (docs/eval.md, "Session 15": brief p50 1.3-2.1 ms lower at 10k records).
      if (!query.alone) await pause(1);
      const t0 = performance.now();
      const sparse = idx.searchSparse(query);
      const t1 = performance.now();
      const timings = () => ({ bm25: tenths(t1 - t0), dense: tenths(performance.now() - t1) });
      if (!sketch) {
        const dense = scan && scan.kind !== 'none' ? idx.searchDense(query) : [];
        return { dense, sparse, timings: timings() };
      }
      const warnings: string[] = [];
      // undefined: no workers, or they are still starting.
      let shortlist: Shortlist | Error | undefined = await threaded;
      if (shortlist instanceof Error) {
        warnings.push(`dense scan workers: ${shortlist.message}; scanned in the main thread instead`);
        shortlist = undefined;
      }
      shortlist ??= scanSketchRange({ ...sketch.job, from: 0, to: sketch.size, thread: 0 }, sketch.kernel);
      const dense = idx.denseFromShortlist(query, shortlist);
      return { dense, sparse, timings: timings(), ...(warnings.length ? { warnings } : {}) };
    },
    async count() {
      return ready().count;
    },
    ids() {
      return ready().allIds();
    },
    async loadSnapshot(fits) {
      const file = snapshotFile();
      const idx = ready();
      if (!file) return false;
      // A missing, damaged or foreign snapshot is no snapshot: the caller rebuilds from Postgres.
      let loaded: LoadedSnapshot | undefined;
      try {
        loaded = await readSnapshot(file, identity, idx.dims, indexOptions, fits);
      } catch {
        return false;
      }
      if (!loaded) return false;
      index = loaded.index;
      store.watermark = loaded.watermark;
      store.database = loaded.database;
      warmUpSoon();
      return true;
    },
    async save() {
      const file = snapshotFile();
      const idx = ready();
      if (!file) return;
      await writeSnapshot(file, idx, identity, { watermark: store.watermark, database: store.database }, opts.crash ?? noCrash);
      // The directory the first format kept per identity, superseded by the file above.
      await rm(path.join(opts.dir!, safeName(identity)), { recursive: true, force: true });
    },
    warmUp,
    async close() {
      await pool?.close();
      pool = undefined;
      index?.close();
      index = undefined;
    },
  };
  return store;
}
