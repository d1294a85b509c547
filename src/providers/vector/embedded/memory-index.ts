// The embedded index's structure: dense search over int8 vectors (unit length before quantizing,
// so cosine = dot product), kept in memory or in a file of the index's own (vector-rows.ts), and
// a BM25 inverted index (postings.ts). Deleted points become tombstones (slots are never reused, so
// postings never need surgery); compact() rebuilds without them. What the sketch scan reads
// lives in shared memory, so scan workers read it where it is (scan-pool.ts): the sketches in a
// WebAssembly.Memory that grows in place (sketch-rows.ts), liveness and filter codes in
// SharedArrayBuffers that growing replaces; a scan in flight keeps the ones it was given, whose
// rows below its `size` never change but for liveness.
import { SKETCH_DIMS, sketchInto, sketchPlan, type SketchPlan } from './sketch.js';
import { quantizeQuery, SketchRows } from './sketch-rows.js';
import { scanSketchRange, type Shortlist, type SketchKernel, type SketchScan } from './sketch-scan.js';
import { bm25Idf, sparseDocumentVector, sparseQueryVector } from '../../../text/tokenize.js';
import { Dictionary } from './dictionary.js';
import { PRUNE_FROM_POSTINGS, sparseTopK, type QueryTerm, type SparseBuffers } from './sparse-top.js';
import { Postings, type PinnedPosting } from './postings.js';
import { SlotIds, type SlotIdsParts } from './slot-ids.js';
import { shortlistReads } from './shortlist-reads.js';
import { TopK } from './top-k.js';
import { memoryRows, spillingRows, type Int8Rows } from './vector-rows.js';
import { runSteps, runStepsYielding } from '../../../lib/yield-often.js';
import type { ChunkPoint, StoreFilter, StoreHit, StoreQuery } from '../port.js';

/** Typed arrays over shared memory (same layout and cost as ordinary ones). */
const sharedInt32 = (n: number) => new Int32Array(new SharedArrayBuffer(n * 4));
const sharedUint8 = (n: number) => new Uint8Array(new SharedArrayBuffer(n));

/** The sketch scan a dense query needs (its job without a row range), or the answer when no scan can match. */
export type DenseScan =
  | { kind: 'none' }
  | { kind: 'exact' }
  /** `kernel` scans in this thread; workers bind their own to `job.rows`. */
  | { kind: 'sketch'; job: Omit<SketchScan, 'from' | 'to' | 'thread'>; size: number; kernel: SketchKernel };

export interface EmbeddedIndexOptions {
  /** false: keep the sketches in a plain SharedArrayBuffer and scan them in JavaScript, as where WebAssembly is unavailable (tests). */
  wasm?: boolean;
  /** Keep the int8 vectors in a file in this folder once they pass `vectorsInMemoryBytes` (vector-rows.ts); none: in memory. */
  vectorDir?: string;
  /** How much of the vectors stays in memory with a `vectorDir` (VECTORS_IN_MEMORY_BYTES); 0: all in the file. */
  vectorsInMemoryBytes?: number;
  /** Distinct BM25 weights the postings code before they hold floats (MAX_WEIGHT_CODES); tests give fewer. */
  weightCodes?: number;
}

/** Rows a scan over every slot, a compaction or a restore reads at once. */
const ROWS_PER_READ = 1024;
/** Posting entries a restore or a compaction handles between pauses (each term counts 16 more). */
const POSTINGS_PER_STEP = 20_000;
/**
 * Words of a record's own (StoreQuery.recordWords) looked up: its rarest. On the synthetic corpus,
 * a record's near-copy (bench/duplicates.ts's edits) found the original among the top 10 in 2,095
 * lookups of 2,100 at 10k and 100k records, where its 16 longest words found it in 988 and 744
 * (docs/eval.md, "Session 23"), in 0.7 and 6.7 ms against 0.9 and 9.5; 12 found 2,093 and 2,089, 24
 * no more than 16 at half the speed.
 */
const RECORD_WORDS_LOOKED_UP = 16;

export interface PointMeta {
  id: string;
  nodeId: string;
  tenant: string;
  collectionId: string;
  nodeType: string;
  shape: string;
  sourceKind: string;
}

export const ATTRS = ['tenant', 'collectionId', 'nodeType', 'shape', 'sourceKind'] as const;
export type Attr = (typeof ATTRS)[number];

/**
 * The index as a snapshot holds it: slots 0 to `slots` as they are, tombstones included, and each
 * term's posting entries for them. What `parts()` returns stays as it was when called, whatever
 * the index does next: slots are only ever appended and a slot's row never changes but for its
 * liveness (copied), and a posting only grows at its end, so views of the rows below `slots` and
 * of each posting's first entries hold still without copying the index.
 */
export interface IndexParts {
  dims: number;
  slots: number;
  /** Slots' rows as int8 with one scale each (see `vectors` below): `count` at least `slots`, rows below `slots` read. */
  vectors: Pick<Int8Rows, 'read' | 'readAsync'>;
  scales: Float32Array;
  alive: Uint8Array;
  /** Every slot's id and node id (tombstones' too). */
  ids: SlotIdsParts;
  codes: Record<Attr, Int32Array>;
  dictionaries: Record<Attr, string[]>;
  /** Each term's entries; their weights codes into `weightTable`, or floats when it is undefined. */
  postings: PinnedPosting[];
  weightTable: Float32Array | undefined;
  /** Called once the parts are read: until then the postings' views hold still (postings.ts). */
  release(): void;
}

export class EmbeddedIndex {
  /**
   * Vectors as int8 with one scale each (v ≈ scale × q): a quarter of float32's memory, and a
   * cosine within about 0.005 of the exact one (0.003 at most on real doc chunks), well below
   * what separates neighbours (the eval's dense recall did not move).
   */
  private readonly vectors: Int8Rows;
  private scales: Float32Array;
  /** A row being quantized before it is appended. */
  private readonly rowTemp: Int8Array;
  /** Count sketches of the vectors (see sketch.ts), when the vectors are wide enough to gain. */
  private readonly sketches: SketchRows | undefined;
  /** A vector's sketch before it is stored as int8. */
  private readonly sketchTemp = new Float32Array(SKETCH_DIMS);
  private readonly plan: SketchPlan | undefined;
  private capacity: number;
  size = 0;
  private alive: Uint8Array = sharedUint8(0);
  private live = 0;
  /** Live points by tenant code: BM25's document count is the asking tenant's (see searchSparse). */
  private liveByTenant: number[] = [];
  /** Each slot's id and node id, and each live id's slot. */
  private ids = new SlotIds();
  private readonly dicts: Record<Attr, Dictionary> = {
    tenant: new Dictionary(),
    collectionId: new Dictionary(),
    nodeType: new Dictionary(),
    shape: new Dictionary(),
    sourceKind: new Dictionary(),
  };
  private codes: Record<Attr, Int32Array>;
  private readonly postings: Postings;
  private sparseBuffers: SparseBuffers = { scores: new Float64Array(0), touched: new Int32Array(0) };
  /** From how many postings in all BM25 prunes (sparse-top.ts); tests set 0 to prune always. */
  pruneFromPostings = PRUNE_FROM_POSTINGS;
  /** Bumped by every removal: a posting's cached live count holds while this has not moved. */
  private removals = 0;

  constructor(
    readonly dims: number,
    initialCapacity = 1024,
    private readonly options: EmbeddedIndexOptions = {},
  ) {
    this.capacity = initialCapacity;
    this.postings = new Postings(options.weightCodes);
    this.vectors = options.vectorDir
      ? spillingRows(options.vectorDir, dims, options.vectorsInMemoryBytes)
      : memoryRows(dims, initialCapacity);
    this.rowTemp = new Int8Array(dims);
    this.scales = new Float32Array(initialCapacity);
    if (dims >= 2 * SKETCH_DIMS) {
      this.plan = sketchPlan(dims);
      this.sketches = new SketchRows(initialCapacity, options.wasm);
    }
    this.alive = sharedUint8(initialCapacity);
    this.codes = Object.fromEntries(ATTRS.map((a) => [a, sharedInt32(initialCapacity)])) as Record<Attr, Int32Array>;
  }

  /** Which kernel scans the sketches (undefined: the vectors are too narrow to keep sketches). */
  get sketchKernel(): 'wasm' | 'js' | undefined {
    return this.sketches?.kind;
  }

  get count(): number {
    return this.live;
  }

  get tombstones(): number {
    return this.size - this.live;
  }

  has(id: string): boolean {
    return this.ids.slotOf(id) >= 0;
  }

  allIds(): string[] {
    return this.ids.liveIds();
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    this.scales = scales;
    this.sketches?.ensure(capacity);
    const alive = sharedUint8(capacity);
    alive.set(this.alive);
    this.alive = alive;
    for (const a of ATTRS) {
      const c = sharedInt32(capacity);
      c.set(this.codes[a]);
      this.codes[a] = c;
    }
    this.capacity = capacity;
  }

  /** Adds a point with a precomputed BM25 vector (used by upsert and by snapshot loading). */
  addPoint(meta: PointMeta, vector: Float32Array, sparse: { indices: ArrayLike<number>; values: ArrayLike<number> }): void {
    if (vector.length !== this.dims) throw new Error(`vector has ${vector.length} dimensions, the index ${this.dims}`);
    if (this.size === this.capacity) this.grow();
    const slot = this.size;
    this.quantizeInto(vector, slot);
    // First, as it may fail (a full disk): the slot is taken, and the old version removed, only
    // once the row is stored.
    this.vectors.append(this.rowTemp);
    this.size++;
    this.remove(meta.id);
    this.ids.append(meta.id, meta.nodeId);
    if (this.sketches) {
      sketchInto(vector, this.plan!, this.sketchTemp, 0);
      this.sketches.write(slot, this.sketchTemp);
    }
    this.alive[slot] = 1;
    this.live++;
    for (const a of ATTRS) this.codes[a][slot] = this.dicts[a].code(meta[a]);
    this.countTenant(slot, 1);
    for (let i = 0; i < sparse.indices.length; i++) this.postings.add(sparse.indices[i]!, slot, sparse.values[i]!);
  }

  private quantizeInto(vector: Float32Array, slot: number): void {
    let max = 0;
    for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
    const scale = max / 127;
    this.scales[slot] = scale;
    const row = this.rowTemp;
    if (scale > 0) for (let i = 0; i < vector.length; i++) row[i] = Math.round(vector[i]! / scale);
    else row.fill(0);
  }

  /** Slot's vector from its int8 row (`row`: read already, or read here). */
  private dequantize(slot: number, row = this.vectors.read(slot, slot + 1)): Float32Array {
    const out = new Float32Array(this.dims);
    const scale = this.scales[slot]!;
    for (let i = 0; i < this.dims; i++) out[i] = row[i]! * scale;
    return out;
  }

  /** Frees the rows' memory or file; the index is not to be used after. */
  close(): void {
    this.vectors.close();
  }

  upsert(point: ChunkPoint): void {
    this.addPoint(point, point.vector, sparseDocumentVector(point.text, point.header, point.terms));
  }

  remove(id: string): void {
    const slot = this.ids.remove(id);
    if (slot < 0) return;
    this.alive[slot] = 0;
    this.live--;
    this.countTenant(slot, -1);
    this.removals++;
  }

  private countTenant(slot: number, by: 1 | -1): void {
    const t = this.codes.tenant[slot]!;
    this.liveByTenant[t] = (this.liveByTenant[t] ?? 0) + by;
  }

  /** The tenant's code and each filter list's codes (an empty list matches nothing); undefined: the tenant has no rows. */
  private constraints(
    tenant: string,
    filter: StoreFilter | undefined,
  ): { tenant: number; filters: { codes: Int32Array; allowed: Int32Array }[] } | undefined {
    const tenantCode = this.dicts.tenant.find(tenant);
    if (tenantCode === undefined) return undefined;
    const lists: [Attr, string[] | undefined][] = [
      ['collectionId', filter?.collectionIds],
      ['nodeType', filter?.nodeTypes],
      ['shape', filter?.shapes],
      ['sourceKind', filter?.sourceKinds],
    ];
    const filters: { codes: Int32Array; allowed: Int32Array }[] = [];
    for (const [attr, values] of lists) {
      if (!values) continue;
      filters.push({
        codes: this.codes[attr],
        allowed: Int32Array.from(values.map((v) => this.dicts[attr].find(v)).filter((c): c is number => c !== undefined)),
      });
    }
    return { tenant: tenantCode, filters };
  }

  private matcher(tenant: string, filter: StoreFilter | undefined): ((slot: number) => boolean) | undefined {
    const c = this.constraints(tenant, filter);
    if (!c) return undefined;
    const tenantCode = c.tenant;
    const checks = c.filters.map((f) => [f.codes, new Set(f.allowed)] as const);
    const tenants = this.codes.tenant;
    const alive = this.alive;
    // The common case (no filter) gets a closure the JIT can inline into the scan loops.
    if (checks.length === 0) return (slot) => alive[slot] === 1 && tenants[slot] === tenantCode;
    return (slot) => alive[slot] === 1 && tenants[slot] === tenantCode && checks.every(([codes, allowed]) => allowed.has(codes[slot]!));
  }

  /** Dense search in this thread: the sketch scan (when there are sketches) and the exact stage. */
  searchDense(query: StoreQuery): StoreHit[] {
    const scan = this.denseScan(query);
    if (scan.kind === 'none') return [];
    if (scan.kind === 'exact') return this.exactTop(query.vector, query.limit, this.matcher(query.tenant, query.filter)!, undefined);
    return this.denseFromShortlist(query, scanSketchRange({ ...scan.job, from: 0, to: scan.size, thread: 0 }, scan.kernel));
  }

  /**
   * The first of the dense search's two stages: the best few hundred rows by sketch (run here by
   * searchDense or by scan workers), then exact cosine over those alone (denseFromShortlist).
   */
  denseScan(query: StoreQuery): DenseScan {
    const c = this.constraints(query.tenant, query.filter);
    if (!c || query.limit <= 0) return { kind: 'none' };
    if (!this.sketches) return { kind: 'exact' };
    const sketch = new Float32Array(SKETCH_DIMS);
    sketchInto(query.vector, this.plan!, sketch, 0);
    const job = {
      ...quantizeQuery(sketch),
      rows: this.sketches.ref,
      alive: this.alive,
      tenants: this.codes.tenant,
      tenant: c.tenant,
      filters: c.filters,
      k: Math.max(400, query.limit * 4),
    };
    return { kind: 'sketch', job, size: this.size, kernel: this.sketches.kernel };
  }

  /** The exact stage over a sketch shortlist; a row removed while a worker scanned is left out. */
  denseFromShortlist(query: StoreQuery, shortlist: Shortlist): StoreHit[] {
    const alive = this.alive;
    return this.exactTop(
      query.vector,
      query.limit,
      undefined,
      Array.from(shortlist.slots).filter((slot) => alive[slot] === 1),
    );
  }

  /** Exact cosine (vectors are unit length) over every matching slot, or over `slots` only. */
  private exactTop(
    q: Float32Array,
    limit: number,
    match: ((slot: number) => boolean) | undefined,
    slots: number[] | undefined,
  ): StoreHit[] {
    const top = new TopK(limit);
    const d = this.dims;
    const scales = this.scales;
    const score = (slot: number, v: Int8Array, base: number) => {
      let dot = 0;
      let i = 0;
      for (; i + 4 <= d; i += 4)
        dot += q[i]! * v[base + i]! + q[i + 1]! * v[base + i + 1]! + q[i + 2]! * v[base + i + 2]! + q[i + 3]! * v[base + i + 3]!;
      for (; i < d; i++) dot += q[i]! * v[base + i]!;
      dot *= scales[slot]!;
      if (dot >= top.floor) top.push(slot, dot);
    };
    // A shortlist's rows in slot order, near ones in one read (shortlistReads); every slot's in runs.
    if (slots) {
      slots.sort((a, b) => a - b);
      for (const [from, to] of shortlistReads(slots)) {
        const rows = this.vectors.read(slots[from]!, slots[to - 1]! + 1);
        for (let i = from; i < to; i++) score(slots[i]!, rows, (slots[i]! - slots[from]!) * d);
      }
    } else
      for (let from = 0; from < this.size; from += ROWS_PER_READ) {
        const to = Math.min(this.size, from + ROWS_PER_READ);
        let rows: Int8Array | undefined;
        for (let slot = from; slot < to; slot++) if (match!(slot)) score(slot, (rows ??= this.vectors.read(from, to)), (slot - from) * d);
      }
    return top.sorted().map(({ slot, score: s }) => ({ id: this.ids.id(slot), nodeId: this.ids.nodeId(slot), score: s }));
  }

  searchSparse(query: StoreQuery): StoreHit[] {
    const match = this.matcher(query.tenant, query.filter);
    if (!match || query.limit <= 0) return [];
    // Scores accumulate in a dense array (reused between queries, zero between them): far
    // cheaper than a Map when common terms have long postings.
    if (this.sparseBuffers.scores.length < this.size) {
      const n = Math.max(this.size, this.sparseBuffers.scores.length * 2);
      this.sparseBuffers = { scores: new Float64Array(n), touched: new Int32Array(n) };
    }
    // BM25's statistics are the asking tenant's own: counted over every tenant, a word's weight in
    // one workspace's scores would move with another's records, and say whether it holds the word.
    const tenant = this.dicts.tenant.find(query.tenant)!;
    const tenantLive = this.liveByTenant[tenant] ?? 0;
    const alone = tenantLive === this.live;
    const docCount = Math.max(1, tenantLive);
    const terms: QueryTerm[] = [];
    let found = sparseQueryVector(query.text).indices.flatMap((term) => {
      const p = this.postings.get(term);
      return p ? [{ term, p }] : [];
    });
    // A record's own words: the rarest of them find it, and its near-copies, among records that
    // share its common words (postings' lengths count removed entries too: near enough to choose by).
    if (query.recordWords && found.length > RECORD_WORDS_LOOKED_UP)
      found = found
        .map((f, i) => ({ ...f, i }))
        .sort((a, b) => a.p.len - b.p.len || a.i - b.i)
        .slice(0, RECORD_WORDS_LOOKED_UP)
        .sort((a, b) => a.i - b.i);
    for (const { term, p } of found) {
      const df = alone
        ? this.postings.liveCount(term, this.alive, this.removals)
        : this.postings.liveCountIn(term, this.alive, this.removals, this.codes.tenant, tenant);
      if (df === 0) continue;
      const idf = bm25Idf(docCount, df);
      terms.push({ slots: p.slots, weights: p.weights, table: p.table, len: p.len, idf, bound: idf * p.max });
    }
    const pruneFrom = query.recordWords ? Infinity : this.pruneFromPostings;
    return sparseTopK(terms, query.limit, match, this.alive, this.sparseBuffers, pruneFrom).map(({ slot, score }) => ({
      id: this.ids.id(slot),
      nodeId: this.ids.nodeId(slot),
      score,
    }));
  }

  /** Every live point with its vector and BM25 vector (tests read a snapshot's points with it). */
  *livePoints(): Generator<{ meta: PointMeta; vector: Float32Array; sparse: { indices: number[]; values: number[] } }> {
    const sparseBySlot = new Map<number, { indices: number[]; values: number[] }>();
    // Read in one go, before the first point is yielded: nothing is added meanwhile.
    const { table, postings } = this.postings.pinned();
    for (const { term, slots, weights } of postings) {
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (!this.alive[slot]) continue;
        let s = sparseBySlot.get(slot);
        if (!s) sparseBySlot.set(slot, (s = { indices: [], values: [] }));
        s.indices.push(term);
        s.values.push(table ? table[weights[i]!]! : weights[i]!);
      }
    }
    this.postings.unpin();
    for (let slot = 0; slot < this.size; slot++) {
      if (!this.alive[slot]) continue;
      const meta = Object.fromEntries(ATTRS.map((a) => [a, this.dicts[a].values[this.codes[a][slot]!]!])) as Record<Attr, string>;
      yield {
        meta: { id: this.ids.id(slot), nodeId: this.ids.nodeId(slot), ...meta },
        vector: this.dequantize(slot),
        sparse: sparseBySlot.get(slot) ?? { indices: [], values: [] },
      };
    }
  }

  /** The index as it is now, for a snapshot (see IndexParts): views, but for liveness and the id lists. */
  parts(): IndexParts {
    const slots = this.size;
    const { table, postings } = this.postings.pinned();
    return {
      dims: this.dims,
      slots,
      vectors: this.vectors,
      scales: this.scales.subarray(0, slots),
      alive: this.alive.slice(0, slots),
      ids: this.ids.parts(slots),
      codes: Object.fromEntries(ATTRS.map((a) => [a, this.codes[a].subarray(0, slots)])) as Record<Attr, Int32Array>,
      dictionaries: Object.fromEntries(ATTRS.map((a) => [a, [...this.dicts[a].values]])) as Record<Attr, string[]>,
      postings,
      weightTable: table,
      release: () => this.postings.unpin(),
    };
  }

  /**
   * An index holding `parts` as they were (a snapshot read back), its rows copied in as they are
   * stored, not quantized again; the sketches are made anew from them. Throws when the parts do
   * not fit together (a code or a posting's slot out of range).
   */
  static restore(parts: IndexParts, options: EmbeddedIndexOptions = {}): EmbeddedIndex {
    return runSteps(EmbeddedIndex.restoring(parts, options));
  }

  /** restore(), pausing every few hundred rows or postings: for a yielding runner (runStepsYielding). */
  private static *restoring(parts: IndexParts, options: EmbeddedIndexOptions): Generator<void, EmbeddedIndex, void> {
    const { dims, slots } = parts;
    const index = new EmbeddedIndex(dims, Math.max(1024, slots), options);
    index.scales.set(parts.scales);
    index.alive.set(parts.alive);
    for (const a of ATTRS) {
      for (const value of parts.dictionaries[a]) index.dicts[a].code(value);
      const codes = parts.codes[a];
      for (let slot = 0; slot < slots; slot++)
        if (codes[slot]! < 0 || codes[slot]! >= parts.dictionaries[a].length) throw new Error(`${a} code out of range`);
      index.codes[a].set(codes);
    }
    index.size = slots;
    if (parts.ids.idAt.length !== slots || parts.ids.nodeAt.length !== slots) throw new Error('ids missing');
    index.ids = yield* SlotIds.reading(parts.ids, (slot) => parts.alive[slot] === 1);
    for (let from = 0; from < slots; from += ROWS_PER_READ) {
      const to = Math.min(slots, from + ROWS_PER_READ);
      const rows = parts.vectors.read(from, to);
      if (rows.length !== (to - from) * dims) throw new Error('vector rows missing');
      for (let slot = from; slot < to; slot++) {
        const row = rows.subarray((slot - from) * dims, (slot - from + 1) * dims);
        index.vectors.append(row);
        if (!parts.alive[slot]) continue;
        index.live++;
        index.countTenant(slot, 1);
        if (index.sketches) {
          sketchInto(index.dequantize(slot, row), index.plan!, index.sketchTemp, 0);
          index.sketches.write(slot, index.sketchTemp);
        }
      }
      yield;
    }
    if (parts.weightTable) index.postings.adoptWeightTable(parts.weightTable);
    let added = 0;
    for (const { term, slots: at, weights } of parts.postings) {
      for (let i = 0; i < at.length; i++) if (at[i]! < 0 || at[i]! >= slots) throw new Error('posting slot out of range');
      index.postings.addAll(term, at, weights);
      if ((added += at.length + 16) >= POSTINGS_PER_STEP) yield void (added = 0);
    }
    return index;
  }

  /**
   * A copy without tombstones: the live rows moved down in order, as they are stored (not
   * quantized again), and each posting's live entries renumbered.
   */
  compact(): EmbeddedIndex {
    return runSteps(this.compacting());
  }

  /**
   * compact(), handing the event loop back every few milliseconds (runStepsYielding): a compaction
   * of 100k replaced points held the thread for seconds. The index must not change meanwhile (the
   * store holds its writes back until the copy is in place); searches may read it.
   */
  compactYielding(sliceMs?: number): Promise<EmbeddedIndex> {
    return runStepsYielding(this.compacting(), sliceMs);
  }

  private *compacting(): Generator<void, EmbeddedIndex, void> {
    const parts = this.parts();
    try {
      return yield* this.withoutTombstones(parts);
    } finally {
      parts.release();
    }
  }

  private *withoutTombstones(parts: IndexParts): Generator<void, EmbeddedIndex, void> {
    const to = new Int32Array(parts.slots).fill(-1);
    const kept: number[] = [];
    for (let slot = 0; slot < parts.slots; slot++) if (parts.alive[slot]) to[slot] = kept.push(slot) - 1;
    const { dims } = this;
    // The kept rows, read a run of consecutive slots at a time.
    const keptRows = (from: number, to: number) => {
      const out = new Int8Array((to - from) * dims);
      for (let i = from; i < to;) {
        let end = i + 1;
        while (end < to && kept[end] === kept[end - 1]! + 1) end++;
        out.set(parts.vectors.read(kept[i]!, kept[end - 1]! + 1), (i - from) * dims);
        i = end;
      }
      return out;
    };
    const vectors = { read: keptRows, readAsync: async (from: number, to: number) => keptRows(from, to) };
    const pick = <T extends Int32Array | Float32Array>(a: T, make: (n: number) => T) => {
      const out = make(kept.length);
      kept.forEach((slot, i) => (out[i] = a[slot]!));
      return out;
    };
    const postings: IndexParts['postings'] = [];
    let read = 0;
    for (const { term, slots, weights } of parts.postings) {
      if ((read += slots.length + 16) >= POSTINGS_PER_STEP) yield void (read = 0);
      const live = slots.filter((slot) => to[slot]! >= 0);
      if (!live.length) continue;
      // Codes or floats as they are: the copy takes the table along.
      const kept = weights.filter((_, i) => to[slots[i]!]! >= 0);
      postings.push({ term, slots: live.map((slot) => to[slot]!), weights: kept });
    }
    const ids = yield* SlotIds.reading(parts.ids, () => true, kept);
    return yield* EmbeddedIndex.restoring(
      {
        dims,
        slots: kept.length,
        vectors,
        scales: pick(parts.scales, (n) => new Float32Array(n)),
        alive: new Uint8Array(kept.length).fill(1),
        ids: ids.parts(),
        codes: Object.fromEntries(ATTRS.map((a) => [a, pick(parts.codes[a], (n) => new Int32Array(n))])) as Record<Attr, Int32Array>,
        dictionaries: parts.dictionaries,
        postings,
        weightTable: parts.weightTable,
        release: () => {},
      },
      this.options,
    );
  }
}
