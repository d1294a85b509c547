// The k-th largest of a stream of scores, kept in a bounded min-heap of the k largest: the bar a
// score must clear to be among the k best so far (pruning in sparse-top.ts).
export class ScoreFloor {
  private readonly heap: Float64Array;
  private n = 0;
  constructor(private readonly k: number) {
    this.heap = new Float64Array(k);
  }

  /** The k-th largest score pushed, -Infinity until k have been. */
  get value(): number {
    return this.n < this.k ? -Infinity : this.heap[0]!;
  }

  push(s: number): void {
    const heap = this.heap;
    if (this.n < this.k) {
      let j = this.n++;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (heap[p]! <= s) break;
        heap[j] = heap[p]!;
        j = p;
      }
      heap[j] = s;
      return;
    }
    if (!(s > heap[0]!)) return;
    let j = 0;
    for (;;) {
      const l = 2 * j + 1;
      if (l >= this.k) break;
      const m = l + 1 < this.k && heap[l + 1]! < heap[l]! ? l + 1 : l;
      if (heap[m]! >= s) break;
      heap[j] = heap[m]!;
      j = m;
    }
    heap[j] = s;
  }
}
