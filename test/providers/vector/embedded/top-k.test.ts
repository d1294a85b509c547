// The embedded index's bounded heap (top-k.ts): the k best pairs, best first, equal scores by the
// lower slot, whatever order they were pushed in.
import { describe, expect, it } from 'vitest';
import { TopK } from '../../../../src/providers/vector/embedded/top-k.js';

const pairs = [
  [5, 0.2],
  [1, 0.9],
  [7, 0.5],
  [3, 0.5],
  [2, 0.1],
  [9, 0.9],
  [4, 0.7],
] as const;

const topOf = (k: number, order: readonly (readonly [number, number])[]) => {
  const top = new TopK(k);
  for (const [slot, score] of order) if (score >= top.floor) top.push(slot, score);
  return top.sorted();
};

describe('TopK', () => {
  it('keeps the k best, best first, equal scores by the lower slot, in any push order', () => {
    const expected = [
      { slot: 1, score: 0.9 },
      { slot: 9, score: 0.9 },
      { slot: 4, score: 0.7 },
      { slot: 3, score: 0.5 },
    ];
    expect(topOf(4, pairs)).toEqual(expected);
    expect(topOf(4, [...pairs].reverse())).toEqual(expected);
  });

  it('keeps everything pushed when k is larger, and nothing when k is 0', () => {
    expect(topOf(20, pairs)).toHaveLength(pairs.length);
    expect(topOf(0, pairs)).toEqual([]);
  });

  it('takes a fractional k as the next whole number, as a comparison with it does', () => {
    expect(topOf(2.5, pairs).map((p) => p.slot)).toEqual([1, 9, 4]);
  });
});
