// The k best (slot, score) pairs of a scan, kept in a bounded min-heap. Equal scores rank the
// lower slot first, so the k best do not depend on the order rows were pushed in (the dense
// search's shortlist comes from several workers: sketch-scan.ts keeps the same rule).
/** A bounded min-heap keeping the `k` best (slot, score) pairs. */
export class TopK {
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];
  constructor(private readonly k: number) {}
  /** The worst score kept once full: a score below it cannot enter (an equal one may, with a lower slot). */
  get floor(): number {
    return this.slots.length < this.k ? -Infinity : this.scores[0]!;
  }
  push(slot: number, score: number): void {
    if (this.slots.length < this.k) {
      this.slots.push(slot);
      this.scores.push(score);
      this.up(this.slots.length - 1);
    } else if (this.k > 0 && (score > this.scores[0]! || (score === this.scores[0] && slot < this.slots[0]!))) {
      this.slots[0] = slot;
      this.scores[0] = score;
      this.down(0);
    }
  }
  sorted(): { slot: number; score: number }[] {
    return this.slots.map((slot, i) => ({ slot, score: this.scores[i]! })).sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
  /** Whether entry i ranks below entry j. */
  private worse(i: number, j: number): boolean {
    return this.scores[i]! < this.scores[j]! || (this.scores[i] === this.scores[j] && this.slots[i]! > this.slots[j]!);
  }
  private swap(i: number, j: number) {
    [this.slots[i], this.slots[j]] = [this.slots[j]!, this.slots[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
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
      if (l < this.scores.length && this.worse(l, m)) m = l;
      if (r < this.scores.length && this.worse(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
