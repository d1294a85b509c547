// The k best (slot, score) pairs of a scan, kept in a bounded min-heap. Equal scores rank the
// lower slot first, so the k best do not depend on the order rows were pushed in (the dense
// search's shortlist comes from several workers: sketch-scan.ts keeps the same rule). The heap
// lives in two typed arrays: a brief pushes hundreds of scores, and arrays of numbers swapped by
// destructuring allocated on every swap (a brief's heap profile, docs/eval.md "Session 23").
/** A bounded min-heap keeping the `k` best (slot, score) pairs. */
export class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;
  constructor(private readonly k: number) {
    // As many entries as k allows: a fractional k keeps as many as an array compared with it did.
    const capacity = Math.max(0, Math.ceil(k));
    this.slots = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }
  /** The worst score kept once full: a score below it cannot enter (an equal one may, with a lower slot). */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }
  push(slot: number, score: number): void {
    if (this.size < this.k) {
      this.slots[this.size] = slot;
      this.scores[this.size] = score;
      this.up(this.size++);
    } else if (this.k > 0 && (score > this.scores[0]! || (score === this.scores[0] && slot < this.slots[0]!))) {
      this.slots[0] = slot;
      this.scores[0] = score;
      this.down(0);
    }
  }
  sorted(): { slot: number; score: number }[] {
    const out: { slot: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ slot: this.slots[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
  /** Whether entry i ranks below entry j. */
  private worse(i: number, j: number): boolean {
    return this.scores[i]! < this.scores[j]! || (this.scores[i] === this.scores[j] && this.slots[i]! > this.slots[j]!);
  }
  private swap(i: number, j: number) {
    const slot = this.slots[i]!;
    this.slots[i] = this.slots[j]!;
    this.slots[j] = slot;
    const score = this.scores[i]!;
    this.scores[i] = this.scores[j]!;
    this.scores[j] = score;
  }
  private up(i: number) {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.worse(i, p)) return;
      this.swap(i, p);
      i = p;
    }
  }
  private down(i: number) {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && this.worse(l, m)) m = l;
      if (r < this.size && this.worse(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
