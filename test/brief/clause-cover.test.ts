// Each concern of a multi-part ask keeps places at the top (brief/clause-cover.ts): a clause the
// first places do not cover gets its best candidates lifted in, just below the last one kept on
// its own merit; a covered clause, a candidate under the floor, or a one-clause ask lifts nothing.
import { describe, expect, it } from 'vitest';
import { coverClauses } from '../../src/brief/clause-cover.js';

/** Twelve candidates a…l, relevance 1, 0.95, 0.9…; clause maps give each clause's own relevance. */
const ranked = () => new Map('abcdefghijkl'.split('').map((id, i) => [id, 1 - i * 0.05]));
const order = (r: Map<string, number>) => [...r.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
const clause = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('coverClauses', () => {
  it("lifts an uncovered clause's best into the first slots, displacing the last there", () => {
    const r = ranked();
    coverClauses(r, [clause({ a: 1, b: 0.9, c: 0.8 }), clause({ l: 1, k: 0.95, a: 0.1 })], 10, 2, 0.85);
    const top = order(r).slice(0, 10);
    expect(top).toContain('l');
    expect(top).toContain('k');
    // The first clause was covered (a, b): its order is untouched; i and j made room.
    expect(top.slice(0, 8)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(top).not.toContain('i');
    expect(top).not.toContain('j');
    // The lifted sit above what they displaced and below what stayed.
    expect(r.get('l')!).toBeLessThan(r.get('h')!);
    expect(r.get('l')!).toBeGreaterThan(r.get('i')!);
  });

  it('lifts nothing when every clause is covered, or the ask has one clause', () => {
    for (const byClause of [[clause({ a: 1, b: 0.9 }), clause({ c: 1, d: 0.9, l: 0.5 })], [clause({ l: 1 })]]) {
      const r = ranked();
      coverClauses(r, byClause, 10, 2, 0.85);
      expect(r).toEqual(ranked());
    }
  });

  it('never lifts a candidate under the relevance floor, nor more than half the slots', () => {
    const r = ranked();
    r.set('z', 0.05);
    coverClauses(r, [clause({ a: 1, b: 0.9 }), clause({ z: 1, l: 0.9 })], 10, 2, 0.85);
    expect(r.get('z')).toBe(0.05);
    expect(order(r).slice(0, 10)).toContain('l');

    const s = ranked();
    const many = ['g', 'h', 'i', 'j', 'k', 'l'].map((id) => clause({ [id]: 1 }));
    coverClauses(s, [clause({ a: 1 }), ...many], 6, 1, 1);
    const top = order(s).slice(0, 6);
    expect(top.slice(0, 3)).toEqual(['a', 'b', 'c']);
    expect(top.filter((id) => 'ghijkl'.includes(id))).toHaveLength(3);
  });
});
