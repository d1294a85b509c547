// The distinct BM25 weights of the embedded index's postings, each numbered once, so a posting
// entry holds a 16-bit code instead of a 4-byte float. A weight is a function of a term's count
// in a chunk and the chunk's length (text/tokenize.ts bm25TermWeight), so an index holds few
// distinct ones: 3,183 among 11.79 million entries at 100k synthetic records (docs/eval.md,
// "Issue 29: the index in memory"). Codes are exact: a code reads back the very float32 the entry
// would have held. Past MAX_WEIGHT_CODES distinct values the table is full and the postings keep
// float32 weights instead (postings.ts).

/** Codes a Uint16Array holds. */
export const MAX_WEIGHT_CODES = 1 << 16;

/** A float32's bits, to hash and compare weights as a posting stores them (0 and -0 apart, as the entries would be). */
const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);
const bitsOf = (value: number): number => ((scratch[0] = value), scratchBits[0]!);
/** Mixes all 32 bits into the low ones the table's mask keeps. */
const hash = (bits: number): number => {
  const h = Math.imul(bits ^ (bits >>> 16), 0x45d9f3b);
  return h ^ (h >>> 16);
};

export class WeightTable {
  /** Each code's weight, in order of first use; only appended to, so a view taken earlier reads true. */
  private table = new Float32Array(256);
  private count = 0;
  /** Open addressing on the weight's bits: a code, or -1 where free. Kept at most half full. */
  private slots = new Int32Array(512).fill(-1);

  /** `limit`: codes it hands out at most (tests give fewer to reach the end). */
  constructor(private readonly limit = MAX_WEIGHT_CODES) {}

  get size(): number {
    return this.count;
  }

  /** Each code's weight: a view that later codes do not change. */
  get values(): Float32Array {
    return this.table.subarray(0, this.count);
  }

  /** The code of `weight` as a float32 holds it, a new one if it has none; -1 when the table is full. */
  code(weight: number): number {
    const bits = bitsOf(weight);
    const mask = this.slots.length - 1;
    let i = hash(bits) & mask;
    for (let c = this.slots[i]!; c >= 0; c = this.slots[i]!) {
      if (bitsOf(this.table[c]!) === bits) return c;
      i = (i + 1) & mask;
    }
    if (this.count === this.limit) return -1;
    this.slots[i] = this.push(weight);
    if (this.count * 2 > this.slots.length) this.rehash();
    return this.count - 1;
  }

  /** Takes `values` as codes 0, 1, … in order (a snapshot's table); only while the table is empty. */
  adopt(values: Float32Array): void {
    if (this.count > 0) throw new Error('weight table adopted after use');
    if (values.length > this.limit) throw new Error('weight table too long');
    // A value listed twice (no writer does that) keeps its place: the first is the one looked up.
    for (let i = 0; i < values.length; i++) if (this.code(values[i]!) !== i) this.push(values[i]!);
  }

  private push(weight: number): number {
    if (this.count === this.table.length) {
      // A copy, not in place: views handed out keep the old array, which holds their codes.
      const grown = new Float32Array(this.table.length * 2);
      grown.set(this.table);
      this.table = grown;
    }
    this.table[this.count] = weight;
    return this.count++;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let c = 0; c < this.count; c++) {
      let i = hash(bitsOf(this.table[c]!)) & mask;
      while (slots[i]! >= 0) i = (i + 1) & mask;
      slots[i] = c;
    }
    this.slots = slots;
  }
}
