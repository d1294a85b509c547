// The brief's caches' bounded map (src/lib/recent-map.ts): never more than its bound, the least
// recently used forgotten first, so an entry just read outlasts max - 1 new ones.
import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../src/lib/recent-map.js';

describe('RecentMap', () => {
  it('holds at most its bound, forgetting the oldest first', () => {
    const map = new RecentMap<string, number>(3);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) map.set(k, i);
    expect(map.size).toBe(3);
    expect(map.has('a')).toBe(false);
    expect(['b', 'c', 'd'].map((k) => map.get(k))).toEqual([1, 2, 3]);
  });

  it('keeps an entry used while it is in the older half', () => {
    const map = new RecentMap<string, number>(4);
    map.set('used', 0);
    for (let i = 0; i < 3; i++) map.set(`filler${i}`, i);
    // 'used' is now the oldest of four: a read moves it last.
    expect(map.get('used')).toBe(0);
    for (let i = 3; i < 6; i++) map.set(`filler${i}`, i);
    expect(map.has('used')).toBe(true);
    expect(map.has('filler0')).toBe(false);
  });

  it('keeps an entry just read through max - 1 new entries, and a replaced value', () => {
    const max = 64;
    const map = new RecentMap<number, string>(max);
    for (let i = 0; i < max; i++) map.set(i, `v${i}`);
    for (let round = 0; round < 20; round++) {
      const key = (round * 7) % max;
      if (!map.has(key)) map.set(key, `v${key}`);
      map.get(key);
      for (let j = 0; j < max - 1; j++) map.set(1000 + round * max + j, 'new');
      expect(map.has(key)).toBe(true);
      expect(map.size).toBeLessThanOrEqual(max);
    }
    map.set(1, 'replaced');
    expect(map.get(1)).toBe('replaced');
    expect(map.size).toBe(max);
  });
});
