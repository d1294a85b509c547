// The shortlist's rows read in runs: near slots share a read, a gap or a long run starts another,
// and every slot is in exactly one run, in order.
import { describe, expect, it } from 'vitest';
import { SHORTLIST_READ_GAP, shortlistReads } from '../../../../src/providers/vector/embedded/shortlist-reads.js';

describe('shortlistReads', () => {
  it('reads slots within the gap of the one before together, and starts a new read past it', () => {
    const g = SHORTLIST_READ_GAP;
    expect(shortlistReads([3, 4, 3 + g + 4, 3 + 2 * g + 5])).toEqual([
      [0, 2],
      [2, 3],
      [3, 4],
    ]);
    expect(shortlistReads([10, 10 + g, 10 + 2 * g - 1])).toEqual([[0, 3]]);
  });

  it('cuts a long dense run so no read holds more than 64 rows', () => {
    const slots = Array.from({ length: 200 }, (_, i) => 1000 + i);
    const runs = shortlistReads(slots);
    expect(runs.map(([from, to]) => slots[to - 1]! - slots[from]! + 1).every((rows) => rows <= 64)).toBe(true);
    expect(runs.map(([from]) => from)).toEqual([0, 64, 128, 192]);
  });

  it('covers every slot once, in order; no slots, no reads', () => {
    const slots = [0, 1, 50, 51, 52, 400, 401, 9000];
    const runs = shortlistReads(slots, 2);
    expect(runs).toEqual([
      [0, 2],
      [2, 5],
      [5, 7],
      [7, 8],
    ]);
    expect(shortlistReads([])).toEqual([]);
  });
});
