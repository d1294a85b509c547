// The embedded index's BM25 postings: for each term, the slots holding it (ascending, as points
// are appended) and their weights, each a 16-bit code into the index's table of distinct weights
// (weight-table.ts), or, once an index has more distinct weights than codes, the float32 weight
// itself (`widen`: every posting's codes are decoded once, and entries hold floats after).
//
// They live in a few dozen shared slabs, not in two typed arrays per term: at 197,621 chunks
// there are ~100,000 terms, and a typed array's own objects and allocation (a V8 object, an
// ArrayBuffer and its backing store, malloc's bookkeeping) cost more than the median term's
// entries. Slab c holds cells of CAPACITIES[c] entries; a term fills its cell, then moves to a
// cell of the next class, about 1.5× larger, and its old cell is reused by the next term that
// moves into that class. A term past the largest cell (a hundred or so common words, which hold
// most entries: 11.4 of the 11.8 million at 100k synthetic records) has two arrays of its own,
// grown by a quarter: in slabs, the cells such terms left behind would be reused by no one
// (measured at 100k records: slabs up to 2^30 entries held 3.7 times the entries in use).
// Per-term figures are typed arrays indexed by the term's number in this index (docs/search.md,
// "The embedded index's memory").
//
// A posting read at some moment (`parts()`, a snapshot being written) holds still: entries are
// only appended past a term's length, a slab grows by a new piece, an own array that grows is
// copied to a new one (views of the old one keep it), and while anything holds parts a cell
// given up is not reused (`pin`). Widening replaces each piece's weights with a new array, so
// views taken before it keep the codes and table they were given.
import { MAX_WEIGHT_CODES, WeightTable } from './weight-table.js';

/** Entries a cell of each class holds: from 1, each about 1.5× the last, up to 4,096 or so. */
const CAPACITIES: number[] = [1];
while (CAPACITIES[CAPACITIES.length - 1]! < 4096)
  CAPACITIES.push(Math.max(CAPACITIES[CAPACITIES.length - 1]! + 1, Math.ceil(CAPACITIES[CAPACITIES.length - 1]! * 1.5)));
/** The class of a term with arrays of its own. */
const OWN = CAPACITIES.length;

/** The smallest class whose cells hold `n` entries (OWN past the largest). */
function classFor(n: number): number {
  let c = 0;
  while (c < OWN && CAPACITIES[c]! < n) c++;
  return c;
}

/** An own array's next length: a quarter more (copies stay few, the unused end small). */
const ownRoom = (n: number) => n + Math.max(16, n >> 2);

/** Entries' weights: codes into the weight table, or (once widened) the weights themselves. */
export type Weights = Uint16Array | Float32Array;

interface Piece {
  slots: Int32Array;
  weights: Weights;
}

/** Entries one piece of a slab holds at most (when a cell is smaller). */
const PIECE_ENTRIES = 1 << 16;

interface Slab {
  /** Pieces of `perPiece` cells, added as the slab fills and never copied: a slab's growth leaves nothing for malloc to hold. */
  pieces: Piece[];
  perPiece: number;
  /** Cells handed out so far (free ones included). */
  cells: number;
  /** Cells given up, to hand out again. */
  free: number[];
}

/** One term's entries as a query reads them. */
export interface PostingView {
  slots: Int32Array;
  /** Codes into `table`, or the weights themselves when `table` is undefined. */
  weights: Weights;
  table: Float32Array | undefined;
  len: number;
  /** The largest weight ever added (tombstones included): a bound on any entry's, for pruning. */
  max: number;
}

/** A term's entries as a snapshot holds them: `weights` codes into the table pinned with them, or floats. */
export interface PinnedPosting {
  term: number;
  slots: Int32Array;
  weights: Weights;
}

const grown = <T extends Int32Array | Float32Array | Uint32Array | Uint16Array | Uint8Array>(a: T, n: number): T => {
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
};

/** Tenant codes are below this (a key of liveCountIn's counts holds a term's number and a tenant's code). */
const TENANT_KEY_SPAN = 2 ** 20;
/** liveCountIn's counts kept at most: the asks' words by tenant, cleared when full. */
const MAX_TENANT_COUNTS = 50_000;

export class Postings {
  /** The distinct weights' codes; undefined once widened (more distinct weights than codes). */
  private weightCodes: WeightTable | undefined;
  /** A term's index (its hash, tokenize.ts termIndex) → its number here. */
  private readonly numberOf = new Map<number, number>();
  private count = 0;
  private term = new Uint32Array(1024);
  private cls = new Uint8Array(1024);
  private cell = new Int32Array(1024);
  private len = new Int32Array(1024);
  private max = new Float32Array(1024);
  /** Live entries among the first `dfLen`, counted when the index's removals were `dfAt` (see liveCount). */
  private df = new Int32Array(1024);
  private dfLen = new Int32Array(1024);
  private dfAt = new Int32Array(1024);
  /** liveCountIn's counts, by term number × TENANT_KEY_SPAN + tenant code. */
  private readonly tenantDf = new Map<number, { df: number; len: number; at: number }>();
  /** The arrays of terms in class OWN, by term number. */
  private readonly own = new Map<number, Piece>();
  private readonly slabs: Slab[] = CAPACITIES.map((cap) => ({
    pieces: [],
    perPiece: Math.max(1, Math.floor(PIECE_ENTRIES / cap)),
    cells: 0,
    free: [],
  }));
  /** How many readers hold views (parts); while any do, cells given up wait in `deferred`. */
  private pins = 0;
  private deferred: [number, number][] = [];

  /** `weightCodes`: how many distinct weights before widening (tests give fewer). */
  constructor(weightCodes = MAX_WEIGHT_CODES) {
    this.weightCodes = new WeightTable(weightCodes);
  }

  /** Whether entries hold 16-bit codes (false once widened). */
  get coded(): boolean {
    return this.weightCodes !== undefined;
  }

  /** Weights as a new piece of this index holds them: codes until widened. */
  private newWeights(n: number): Weights {
    return this.weightCodes ? new Uint16Array(n) : new Float32Array(n);
  }

  /** A term's own arrays, with room for n entries. */
  private ownArrays(n: number): Piece {
    return { slots: new Int32Array(n), weights: this.newWeights(n) };
  }

  /** Terms with entries. */
  get terms(): number {
    return this.count;
  }

  /** A new term, its entries in a cell of class c. */
  private create(term: number, c: number): number {
    const t = this.count++;
    if (t === this.term.length) {
      const n = t * 2;
      [this.term, this.cls, this.cell, this.len, this.max] = [
        grown(this.term, n),
        grown(this.cls, n),
        grown(this.cell, n),
        grown(this.len, n),
        grown(this.max, n),
      ];
      [this.df, this.dfLen, this.dfAt] = [grown(this.df, n), grown(this.dfLen, n), grown(this.dfAt, n)];
    }
    this.numberOf.set(term, t);
    this.term[t] = term;
    this.cell[t] = c === OWN ? -1 : this.take(c);
    this.cls[t] = c;
    this.len[t] = 0;
    this.max[t] = 0;
    this.dfAt[t] = -1;
    return t;
  }

  /** A cell of class c: one given up before, or the slab's next (in a new piece when the last is full). */
  private take(c: number): number {
    const slab = this.slabs[c]!;
    const reused = slab.free.pop();
    if (reused !== undefined) return reused;
    if (slab.cells === slab.pieces.length * slab.perPiece) {
      const n = slab.perPiece * CAPACITIES[c]!;
      slab.pieces.push({ slots: new Int32Array(n), weights: this.newWeights(n) });
    }
    return slab.cells++;
  }

  /** The piece holding class c's cell, and where in it the cell starts. */
  private where(c: number, cell: number): [Piece, number] {
    const slab = this.slabs[c]!;
    return [slab.pieces[Math.floor(cell / slab.perPiece)]!, (cell % slab.perPiece) * CAPACITIES[c]!];
  }

  /** Appends (slot, weight) to a term's entries; `slot` above every slot it holds. */
  add(term: number, slot: number, weight: number): void {
    const t = this.numberOf.get(term) ?? this.create(term, 0);
    const n = this.len[t]!;
    if (this.cls[t] === OWN) {
      let own = this.own.get(t)!;
      if (n === own.slots.length) this.own.set(t, (own = { slots: grown(own.slots, ownRoom(n)), weights: grown(own.weights, ownRoom(n)) }));
      return this.put(t, own, n, slot, weight);
    }
    const c = this.cls[t]!;
    const cell = this.cell[t]!;
    const [from, at] = this.where(c, cell);
    if (n < CAPACITIES[c]!) return this.put(t, from, at + n, slot, weight);
    // Full: the entries move to a cell of the next class, or to arrays of their own.
    let to: Piece;
    let toAt = 0;
    if (c + 1 === OWN) {
      to = this.ownArrays(ownRoom(n));
      this.own.set(t, to);
      this.cell[t] = -1;
    } else {
      this.cell[t] = this.take(c + 1);
      [to, toAt] = this.where(c + 1, this.cell[t]!);
    }
    to.slots.set(from.slots.subarray(at, at + n), toAt);
    // Both codes or both floats: a piece made before widening was widened with the others.
    (to.weights as Float32Array).set(from.weights.subarray(at, at + n), toAt);
    if (this.pins > 0) this.deferred.push([c, cell]);
    else this.slabs[c]!.free.push(cell);
    this.cls[t] = c + 1;
    this.put(t, to, toAt + n, slot, weight);
  }

  /** Writes the entry at `at` in `arrays`, the term's `len`-th. */
  private put(t: number, arrays: Piece, at: number, slot: number, weight: number): void {
    arrays.slots[at] = slot;
    const code = this.weightCodes?.code(weight) ?? -1;
    if (code >= 0) arrays.weights[at] = code;
    else {
      // A distinct weight past the last code: every piece, this one too, holds floats from now on.
      if (this.weightCodes) this.widen();
      arrays.weights[at] = weight;
    }
    this.len[t]!++;
    this.max[t] = Math.max(this.max[t]!, Math.fround(weight));
  }

  /** Every piece's codes decoded into floats, each in a new array (views handed out keep the old). */
  private widen(): void {
    const table = this.weightCodes!.values;
    const decode = (piece: Piece, into: Float32Array) => {
      for (let i = 0; i < piece.weights.length; i++) into[i] = table[piece.weights[i]!]!;
      piece.weights = into;
    };
    for (const slab of this.slabs) for (const piece of slab.pieces) decode(piece, new Float32Array(piece.weights.length));
    for (const piece of this.own.values()) decode(piece, new Float32Array(piece.weights.length));
    this.weightCodes = undefined;
  }

  /** Takes a snapshot's table of weights (restoring an index): its codes mean what they meant there. */
  adoptWeightTable(values: Float32Array): void {
    if (!this.weightCodes || this.count > 0) throw new Error('weight table adopted after use');
    this.weightCodes.adopt(values);
  }

  /**
   * Adds a term's entries in one go (restoring an index): its cell is the smallest that holds
   * them. `weights`: floats, or codes into the table adopted before (adoptWeightTable).
   */
  addAll(term: number, slots: Int32Array, weights: Weights): void {
    if (this.numberOf.has(term)) throw new Error('posting restored twice');
    if (weights.length !== slots.length) throw new Error('posting weights and slots differ in length');
    const entries = this.asStored(weights);
    const c = classFor(Math.max(1, slots.length));
    const t = this.create(term, c);
    if (c === OWN) {
      const own = this.ownArrays(slots.length);
      own.slots.set(slots);
      (own.weights as Float32Array).set(entries);
      this.own.set(t, own);
    } else {
      const [piece, at] = this.where(c, this.cell[t]!);
      piece.slots.set(slots, at);
      (piece.weights as Float32Array).set(entries, at);
    }
    let max = 0;
    const table = this.weightCodes?.values;
    for (let i = 0; i < entries.length; i++) max = Math.max(max, table ? table[entries[i]!]! : entries[i]!);
    [this.len[t], this.max[t]] = [slots.length, max];
  }

  /** Restored weights as this index stores them: codes checked against the table, floats coded (widening if they must). */
  private asStored(weights: Weights): Weights {
    if (weights instanceof Uint16Array) {
      if (!this.weightCodes) throw new Error('weight codes without a table');
      const size = this.weightCodes.size;
      for (let i = 0; i < weights.length; i++) if (weights[i]! >= size) throw new Error('weight code out of range');
      return weights;
    }
    if (!this.weightCodes) return weights;
    const codes = new Uint16Array(weights.length);
    for (let i = 0; i < weights.length; i++) {
      const code = this.weightCodes.code(weights[i]!);
      if (code < 0) {
        this.widen();
        return weights;
      }
      codes[i] = code;
    }
    return codes;
  }

  private view(t: number): PostingView {
    const c = this.cls[t]!;
    const n = this.len[t]!;
    const [arrays, at] = c === OWN ? [this.own.get(t)!, 0] : this.where(c, this.cell[t]!);
    return {
      slots: arrays.slots.subarray(at, at + n),
      weights: arrays.weights.subarray(at, at + n),
      table: this.weightCodes?.values,
      len: n,
      max: this.max[t]!,
    };
  }

  /** A term's entries as they are now (views: read them before the next add), or undefined when it has none. */
  get(term: number): PostingView | undefined {
    const t = this.numberOf.get(term);
    return t === undefined ? undefined : this.view(t);
  }

  /**
   * A term's document frequency over live points only: postings keep tombstones (removed and
   * replaced points) until compaction, and they must not change a score. Counting them costs a
   * pass over the posting, so the count is kept until the next removal (`removals` moves);
   * entries added since are live (a point is added after its old version is removed).
   */
  liveCount(term: number, alive: Uint8Array, removals: number): number {
    const t = this.numberOf.get(term)!;
    const n = this.len[t]!;
    if (this.dfAt[t] !== removals) {
      const { slots } = this.view(t);
      let df = 0;
      for (let i = 0; i < n; i++) df += alive[slots[i]!]!;
      [this.df[t], this.dfLen[t], this.dfAt[t]] = [df, n, removals];
    }
    return this.df[t]! + (n - this.dfLen[t]!);
  }

  /**
   * liveCount among one tenant's points (`tenants`: each slot's tenant code), for an index that
   * holds more than one tenant. Kept like liveCount, by term and tenant, until the next removal;
   * entries added since are counted from where the last count stopped (they may be any tenant's).
   */
  liveCountIn(term: number, alive: Uint8Array, removals: number, tenants: Int32Array, tenant: number): number {
    const t = this.numberOf.get(term)!;
    const n = this.len[t]!;
    const key = t * TENANT_KEY_SPAN + tenant;
    let kept = this.tenantDf.get(key);
    if (!kept || kept.at !== removals) {
      if (this.tenantDf.size >= MAX_TENANT_COUNTS) this.tenantDf.clear();
      kept = { df: 0, len: 0, at: removals };
      this.tenantDf.set(key, kept);
    }
    if (kept.len < n) {
      const { slots } = this.view(t);
      for (let i = kept.len; i < n; i++) {
        const slot = slots[i]!;
        if (tenants[slot] === tenant) kept.df += alive[slot]!;
      }
      kept.len = n;
    }
    return kept.df;
  }

  /**
   * Every term's entries as they are now, views that hold still until `unpin` (see the top of
   * this file), with the table their codes read (undefined: the weights are floats).
   */
  pinned(): { table: Float32Array | undefined; postings: PinnedPosting[] } {
    this.pins++;
    const postings: PinnedPosting[] = [];
    for (let t = 0; t < this.count; t++) {
      const { slots, weights } = this.view(t);
      postings.push({ term: this.term[t]!, slots, weights });
    }
    return { table: this.weightCodes?.values, postings };
  }

  /** Ends a `pinned()`: the cells given up meanwhile may be handed out again. */
  unpin(): void {
    if (--this.pins > 0) return;
    for (const [c, cell] of this.deferred) this.slabs[c]!.free.push(cell);
    this.deferred = [];
  }
}
