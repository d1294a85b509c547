// The table of the index's distinct BM25 weights: a weight reads back through its code as the
// very float32 a posting would have held, one code per float32 value (0 and -0 apart), codes in
// order of first use, none past the limit, views of the table unchanged by later codes.
import { describe, expect, it } from 'vitest';
import { MAX_WEIGHT_CODES, WeightTable } from '../../../../src/providers/vector/embedded/weight-table.js';

describe('weight table', () => {
  it('codes each float32 value once, in order of first use, and reads it back exactly', () => {
    const table = new WeightTable();
    const weights = [0.1, 1 / 3, 2.2, 0, -0, 1e-30, 7];
    expect(weights.map((w) => table.code(w))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // The same value again, or a double that rounds to the same float32: the same code.
    expect(table.code(Math.fround(1 / 3))).toBe(1);
    expect(table.code(0.1 + 1e-17)).toBe(0);
    expect([...table.values]).toEqual(weights.map(Math.fround));
    expect(Object.is(table.values[4], -0)).toBe(true);
    expect(table.size).toBe(7);
  });

  it('keeps thousands of codes through its growth, and views taken earlier unchanged', () => {
    const table = new WeightTable();
    const early = table.values;
    for (let i = 0; i < 5000; i++) expect(table.code(i / 7)).toBe(i);
    const middle = table.values;
    for (let i = 0; i < 5000; i++) expect(table.code(i / 7)).toBe(i);
    for (let i = 5000; i < 20_000; i++) table.code(i / 7);
    expect(early.length).toBe(0);
    expect(middle.length).toBe(5000);
    for (let i = 0; i < 20_000; i++) expect(table.values[i]).toBe(Math.fround(i / 7));
  });

  it('answers -1 for a new value once full, and still codes the values it has', () => {
    const table = new WeightTable(3);
    expect([1, 2, 3].map((w) => table.code(w))).toEqual([0, 1, 2]);
    expect(table.code(4)).toBe(-1);
    expect(table.code(2)).toBe(1);
    expect(table.size).toBe(3);
    expect(new WeightTable().code(0) === 0 && MAX_WEIGHT_CODES).toBe(65_536);
  });

  it("adopts a snapshot's table as codes 0, 1, … in order, a value listed twice keeping both places", () => {
    const table = new WeightTable();
    table.adopt(Float32Array.of(0.5, 0.25, 0.5, 2));
    expect([...table.values]).toEqual([0.5, 0.25, 0.5, 2]);
    expect([0.5, 0.25, 2, 3].map((w) => table.code(w))).toEqual([0, 1, 3, 4]);
    expect(() => table.adopt(Float32Array.of(1))).toThrow('adopted after use');
    expect(() => new WeightTable(2).adopt(Float32Array.of(1, 2, 3))).toThrow('too long');
  });
});
