// Score-aware fusion (retrieval/fuse.ts): a hit far ahead in one list stays ahead of weak agreement
// between correlated lists, which reciprocal-rank fusion cannot tell apart.
import { describe, expect, it } from 'vitest';
import { fuseByReciprocalRank, fuseByScore, listShares, sortByScore } from '../../src/retrieval/fuse.js';

describe('fuseByScore', () => {
  const tail = Array.from({ length: 10 }, (_, i) => 0.25 - i * 0.01);
  const lists = [
    // BM25: "a" is far ahead of everything else.
    { name: 'bm25', weight: 1, ids: ['a', 'b', 'c'], scores: [12, 2.1, 2], floor: 'zero' as const },
    // Two correlated lists agree, weakly, on b and c; the dense one also finds a, a little lower.
    {
      name: 'vector',
      weight: 0.7,
      ids: ['b', 'c', 'a', ...tail.map((_, i) => `t${i}`)],
      scores: [0.31, 0.3, 0.29, ...tail],
      floor: 'tail' as const,
    },
    { name: 'fulltext', weight: 0.3, ids: ['b', 'c'], scores: [0.2, 0.19], floor: 'zero' as const },
  ];

  it('keeps a strong single signal ahead of weak agreement', () => {
    expect(sortByScore(fuseByScore(lists))[0]).toBe('a');
    // RRF sees only ranks: b's agreement wins there.
    expect(sortByScore(fuseByReciprocalRank(lists))[0]).toBe('b');
  });

  it('scales each list against its best (and, for tail lists, its last) score', () => {
    const s = fuseByScore([{ name: 'v', weight: 2, ids: ['x', 'y', 'z'], scores: [0.5, 0.4, 0.3], floor: 'tail' }]);
    expect(s.get('x')).toBeCloseTo(2);
    expect(s.get('y')).toBeCloseTo(1);
    expect(s.get('z')).toBeCloseTo(0);
    const z = fuseByScore([{ name: 'b', weight: 1, ids: ['x', 'y'], scores: [4, 1], floor: 'zero' }]);
    expect(z.get('y')).toBeCloseTo(0.25);
  });

  it("gives each list's shares as the fusion weighs them", () => {
    for (const list of lists) {
      const alone = fuseByScore([list]);
      listShares(list).forEach((share, i) => expect(alone.get(list.ids[i]!)).toBeCloseTo(list.weight * share, 12));
    }
    expect(listShares({ scores: [3, 3], floor: 'tail' })).toEqual([1, 1]);
    expect(listShares({ scores: [], floor: 'zero' })).toEqual([]);
  });

  it('ignores empty and zero-weight lists, and a list of equal scores gives each its full weight', () => {
    const s = fuseByScore([
      { name: 'e', weight: 1, ids: [], scores: [], floor: 'zero' },
      { name: 'w', weight: 0, ids: ['x'], scores: [3], floor: 'zero' },
      { name: 'g', weight: 0.5, ids: ['x', 'y'], scores: [1, 1], floor: 'tail' },
    ]);
    expect(s.get('x')).toBeCloseTo(0.5);
    expect(s.get('y')).toBeCloseTo(0.5);
  });
});
