// The embedded index's postings in shared slabs: every term reads back what was added, through
// moves from cell to cell and into arrays of its own; views taken while pinned hold still however
// many terms move meanwhile; restored postings carry on; the live count leaves tombstones out.
// Weights are 16-bit codes into a table until an index has more distinct weights than codes, then
// floats: both read back the same float32 values, through widening, pins and restores.
import { describe, expect, it } from 'vitest';
import { Postings, type Weights } from '../../../../src/providers/vector/embedded/postings.js';

/** A reference: each term's slots and weights as plain arrays (weights rounded to float32, as stored). */
type Model = Map<number, { slots: number[]; weights: number[] }>;

/**
 * Adds `points` points, point p holding term t when (p + t) % (t + 1) === 0: term 0 in all, term
 * 999 in one in a thousand. `distinct` weights at most (997: the table of codes holds them all).
 */
function fill(postings: Postings, model: Model, from: number, to: number, terms = 1000, distinct = 997): void {
  for (let slot = from; slot < to; slot++)
    for (let t = 0; t < terms; t++) {
      if ((slot + t) % (t + 1) !== 0) continue;
      const weight = Math.fround(((slot * 31 + t * 17) % distinct) / 400);
      postings.add(t * 7919 + 1, slot, weight);
      const m = model.get(t * 7919 + 1) ?? { slots: [], weights: [] };
      model.set(t * 7919 + 1, m);
      m.slots.push(slot);
      m.weights.push(weight);
    }
}

/** The weights as numbers: codes read through the table, floats as they are. */
const decoded = (weights: Weights, table: Float32Array | undefined) => [...weights].map((w) => (table ? table[w]! : w));

function expectSame(postings: Postings, model: Model): void {
  expect(postings.terms).toBe(model.size);
  for (const [term, m] of model) {
    const view = postings.get(term)!;
    expect(view.len).toBe(m.slots.length);
    expect([...view.slots]).toEqual(m.slots);
    // Object.is, element by element: 0 and -0 apart.
    expect(decoded(view.weights, view.table)).toEqual(m.weights);
    expect(view.max).toBe(Math.max(...m.weights));
  }
}

/** A copy of every pinned term's entries, weights decoded, to compare with what the views read later. */
const pinnedCopy = (pinned: ReturnType<Postings['pinned']>) =>
  pinned.postings.map(({ term, slots, weights }) => ({
    term,
    slots,
    weights,
    table: pinned.table,
    copy: [[...slots], decoded(weights, pinned.table)],
  }));

describe('postings', () => {
  it('read back every entry in order, from one entry to past the largest cell', () => {
    const postings = new Postings();
    const model: Model = new Map();
    fill(postings, model, 0, 6000);
    // Term 0 holds every point: past the largest cell, in arrays of its own.
    expect(postings.get(1)!.len).toBe(6000);
    expectSame(postings, model);
    expect(postings.get(12345)).toBeUndefined();
  });

  it('hold what was pinned still while terms move and cells are handed out, and reuse cells once unpinned', () => {
    const postings = new Postings();
    const model: Model = new Map();
    fill(postings, model, 0, 300);
    const pinned = pinnedCopy(postings.pinned());
    fill(postings, model, 300, 3000);
    for (const p of pinned) expect([[...p.slots], decoded(p.weights, p.table)]).toEqual(p.copy);
    postings.unpin();
    fill(postings, model, 3000, 6000);
    expectSame(postings, model);
    // Term 0 now has arrays of its own, which grow under the views pinned here.
    const ownPinned = pinnedCopy(postings.pinned());
    fill(postings, model, 6000, 9000);
    for (const p of ownPinned) expect([[...p.slots], decoded(p.weights, p.table)]).toEqual(p.copy);
    postings.unpin();
    expectSame(postings, model);
  });

  it('carry on after a restore: each term added whole, then appended to', () => {
    const source = new Postings();
    const model: Model = new Map();
    fill(source, model, 0, 5000);
    const restored = new Postings();
    const { table, postings } = source.pinned();
    restored.adoptWeightTable(table!);
    for (const { term, slots, weights } of postings) restored.addAll(term, slots, weights);
    source.unpin();
    expectSame(restored, model);
    fill(restored, model, 5000, 7000);
    expectSame(restored, model);
  });

  it('count live entries only, counted again when a removal happened, entries added since counted live', () => {
    const postings = new Postings();
    const alive = new Uint8Array(10).fill(1);
    for (let slot = 0; slot < 6; slot++) postings.add(42, slot, 1);
    expect(postings.liveCount(42, alive, 0)).toBe(6);
    alive[2] = 0;
    alive[4] = 0;
    // The same removal count: the count kept, plus what was added since.
    postings.add(42, 6, 1);
    expect(postings.liveCount(42, alive, 0)).toBe(7);
    expect(postings.liveCount(42, alive, 2)).toBe(5);
  });

  it('hold 16-bit codes while the distinct weights fit, floats once they do not, reading back the same', () => {
    const postings = new Postings(997);
    const model: Model = new Map();
    fill(postings, model, 0, 2000);
    expect(postings.coded).toBe(true);
    expect(postings.get(1)!.weights).toBeInstanceOf(Uint16Array);
    const before = pinnedCopy(postings.pinned());
    // One weight more than the table holds: every term's entries, in cells and own arrays, widen.
    fill(postings, model, 2000, 3000, 1000, 1009);
    expect(postings.coded).toBe(false);
    expect(postings.get(1)!.weights).toBeInstanceOf(Float32Array);
    expect(postings.get(1)!.table).toBeUndefined();
    expectSame(postings, model);
    // Views pinned before the widening keep their codes and table.
    for (const p of before) expect([[...p.slots], decoded(p.weights, p.table)]).toEqual(p.copy);
    postings.unpin();
    fill(postings, model, 3000, 6000, 1000, 1009);
    expectSame(postings, model);
  });

  it('widen past 65,536 distinct weights, the last code taken first', () => {
    const postings = new Postings();
    const model: Model = new Map();
    const add = (term: number, slot: number, weight: number) => {
      postings.add(term, slot, weight);
      const m = model.get(term) ?? { slots: [], weights: [] };
      model.set(term, m);
      m.slots.push(slot);
      m.weights.push(Math.fround(weight));
    };
    // 65,536 distinct weights (1 + i / 2^17, exact in float32) over 64 terms, each twice.
    for (let i = 0; i < 65_536; i++) add(i % 64, i, 1 + i / 2 ** 17);
    for (let i = 0; i < 65_536; i++) add(64 + (i % 64), i, 1 + i / 2 ** 17);
    expect(postings.coded).toBe(true);
    add(200, 0, 3.5);
    expect(postings.coded).toBe(false);
    expectSame(postings, model);
  });

  it('restore floats (a snapshot of an index that widened, or of format 3) as codes, widening midway when they do not fit', () => {
    const source = new Postings(40);
    const model: Model = new Map();
    fill(source, model, 0, 3000, 300, 97);
    expect(source.coded).toBe(false);
    for (const [limit, coded] of [
      [97, true],
      [60, false],
    ] as const) {
      const restored = new Postings(limit);
      const { table, postings } = source.pinned();
      expect(table).toBeUndefined();
      for (const { term, slots, weights } of postings) restored.addAll(term, slots, weights);
      source.unpin();
      expect(restored.coded).toBe(coded);
      expectSame(restored, model);
      const carriedOn: Model = new Map([...model].map(([term, m]) => [term, { slots: [...m.slots], weights: [...m.weights] }]));
      fill(restored, carriedOn, 3000, 3500, 300, 97);
      expectSame(restored, carriedOn);
    }
  });

  it('refuse codes past the adopted table, and a table adopted after entries', () => {
    const postings = new Postings();
    postings.adoptWeightTable(Float32Array.of(0.5, 1.5));
    postings.addAll(7, Int32Array.of(0, 1), Uint16Array.of(1, 0));
    expect(postings.get(7)!.max).toBe(1.5);
    expect(() => postings.addAll(8, Int32Array.of(0), Uint16Array.of(2))).toThrow('weight code out of range');
    expect(() => postings.addAll(9, Int32Array.of(0, 1), Uint16Array.of(0))).toThrow('differ in length');
    expect(() => postings.adoptWeightTable(Float32Array.of(1))).toThrow('adopted after use');
  });
});
