// The k best (slot, score) pairs of a scan, kept in a bounded min-heap.
/** A bounded min-heap keeping the `k` best (slot, score) pairs. */
export class TopK {
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];
  constructor(private readonly k: number) {}
  get floor(): number {
    return this.slots.length < this.k ? -Infinity : this.scores[0]!;
  }
  push(slot: number, score: number): void {
    if (this.slots.length < this.k) {
      this.slots.push(slot);
      this.scores.push(score);
      this.up(this.slots.length - 1);
    } else if (score > this.scores[0]!) {
      this.slots[0] = slot;
      this.scores[0] = score;
      this.down(0);
    }
  }
  sorted(): { slot: number; score: number }[] {
    return this.slots.map((slot, i) => ({ slot, score: this.scores[i]! })).sort((a, b) => b.score - a.score);
  }
  private swap(i: number, j: number) {
    [this.slots[i], this.slots[j]] = [this.slots[j]!, this.slots[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
  }
  private up(i: number) {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.scores[p]! <= this.scores[i]!) return;
      this.swap(i, p);
      i = p;
    }
  }
  private down(i: number) {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.scores.length && this.scores[l]! < this.scores[m]!) m = l;
      if (r < this.scores.length && this.scores[r]! < this.scores[m]!) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
