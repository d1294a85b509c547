// Record ids: <type>_<ULID>, in creation order within a process, and their random part drawn
// evenly from the 32 symbols (the pooled source of src/lib/ids.ts).
import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newId } from '../../src/lib/ids.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('newId', () => {
  it('makes well-formed, distinct ids that sort in creation order, within and across milliseconds', async () => {
    const ids: string[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) ids.push(newId('rule'));
      await sleep(2);
    }
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws the random part evenly over the 32 symbols', async () => {
    // Each id in a new millisecond gets 16 fresh random symbols; 64 ms × 16 = 1,024 draws.
    const counts = new Map<string, number>();
    for (let i = 0; i < 64; i++) {
      await sleep(1.1);
      for (const c of newId('rule').slice(-16)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    const draws = [...counts.values()].reduce((a, b) => a + b, 0);
    expect(draws).toBe(1024);
    // 32 expected per symbol: every symbol appears, and none is far off (a chi-square bound
    // at 31 degrees of freedom that an even source exceeds about once in a million runs).
    expect(counts.size).toBe(32);
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - 32) ** 2 / 32, 0);
    expect(chiSquare).toBeLessThan(90);
  });
});
