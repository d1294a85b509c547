// The embedded index's BM25 postings: for each term, the slots holding it (ascending, as points
// are appended) and their weights. They live in a few dozen shared slabs, not in two typed arrays
// per term: at 197,621 chunks there are ~100,000 terms, and a typed array's own objects and
// allocation (a V8 object, an ArrayBuffer and its backing store, malloc's bookkeeping) cost more
// than the median term's entries. Slab c holds cells of CAPACITIES[c] entries; a term fills its
// cell, then moves to a cell of the next class, about 1.5× larger, and its old cell is reused by
// the next term that moves into that class. A term past the largest cell (a few hundred common
// words) has two arrays of its own, grown by a quarter: in slabs, the cells such terms left
// behind would be reused by no one (measured at 100k records: slabs up to 2^30 entries held 3.7
// times the entries in use). Per-term figures are typed arrays indexed by the term's number in
// this index (docs/search.md, "The embedded index's memory").
//
// A posting read at some moment (`parts()`, a snapshot being written) holds still: entries are
// only appended past a term's length, a slab grows by a new piece, an own array that grows is
// copied to a new one (views of the old one keep it), and while anything holds parts a cell
// given up is not reused (`pin`).

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

interface Piece {
  slots: Int32Array;
  weights: Float32Array;
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
  weights: Float32Array;
  len: number;
  /** The largest weight ever added (tombstones included): a bound on any entry's, for pruning. */
  max: number;
}

const grown = <T extends Int32Array | Float32Array | Uint32Array | Uint8Array>(a: T, n: number): T => {
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
};

export class Postings {
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
      slab.pieces.push({ slots: new Int32Array(n), weights: new Float32Array(n) });
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
      to = { slots: new Int32Array(ownRoom(n)), weights: new Float32Array(ownRoom(n)) };
      this.own.set(t, to);
      this.cell[t] = -1;
    } else {
      this.cell[t] = this.take(c + 1);
      [to, toAt] = this.where(c + 1, this.cell[t]!);
    }
    to.slots.set(from.slots.subarray(at, at + n), toAt);
    to.weights.set(from.weights.subarray(at, at + n), toAt);
    if (this.pins > 0) this.deferred.push([c, cell]);
    else this.slabs[c]!.free.push(cell);
    this.cls[t] = c + 1;
    this.put(t, to, toAt + n, slot, weight);
  }

  /** Writes the entry at `at` in `arrays`, the term's `len`-th. */
  private put(t: number, arrays: Piece, at: number, slot: number, weight: number): void {
    arrays.slots[at] = slot;
    arrays.weights[at] = weight;
    this.len[t]!++;
    this.max[t] = Math.max(this.max[t]!, arrays.weights[at]!);
  }

  /** Adds a term's entries in one go (restoring an index): its cell is the smallest that holds them. */
  addAll(term: number, slots: Int32Array, weights: Float32Array): void {
    if (this.numberOf.has(term)) throw new Error('posting restored twice');
    const c = classFor(Math.max(1, slots.length));
    const t = this.create(term, c);
    if (c === OWN) this.own.set(t, { slots: slots.slice(), weights: weights.slice() });
    else {
      const [piece, at] = this.where(c, this.cell[t]!);
      piece.slots.set(slots, at);
      piece.weights.set(weights, at);
    }
    let max = 0;
    for (let i = 0; i < weights.length; i++) max = Math.max(max, weights[i]!);
    [this.len[t], this.max[t]] = [slots.length, max];
  }

  private view(t: number): PostingView {
    const c = this.cls[t]!;
    const n = this.len[t]!;
    const [arrays, at] = c === OWN ? [this.own.get(t)!, 0] : this.where(c, this.cell[t]!);
    return { slots: arrays.slots.subarray(at, at + n), weights: arrays.weights.subarray(at, at + n), len: n, max: this.max[t]! };
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

  /** Every term's entries as they are now, views that hold still until `unpin` (see the top of this file). */
  pinned(): { term: number; slots: Int32Array; weights: Float32Array }[] {
    this.pins++;
    const out: { term: number; slots: Int32Array; weights: Float32Array }[] = [];
    for (let t = 0; t < this.count; t++) {
      const { slots, weights } = this.view(t);
      out.push({ term: this.term[t]!, slots, weights });
    }
    return out;
  }

  /** Ends a `pinned()`: the cells given up meanwhile may be handed out again. */
  unpin(): void {
    if (--this.pins > 0) return;
    for (const [c, cell] of this.deferred) this.slabs[c]!.free.push(cell);
    this.deferred = [];
  }
}
