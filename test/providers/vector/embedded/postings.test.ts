// The embedded index's postings in shared slabs: every term reads back what was added, through
// moves from cell to cell and into arrays of its own; views taken while pinned hold still however
// many terms move meanwhile; restored postings carry on; the live count leaves tombstones out.
import { describe, expect, it } from 'vitest';
import { Postings } from '../../../../src/providers/vector/embedded/postings.js';

/** A reference: each term's slots and weights as plain arrays (weights rounded to float32, as stored). */
type Model = Map<number, { slots: number[]; weights: number[] }>;

/** Adds `points` points, point p holding term t when (p + t) % (t + 1) === 0: term 0 in all, term 999 in one in a thousand. */
function fill(postings: Postings, model: Model, from: number, to: number, terms = 1000): void {
  for (let slot = from; slot < to; slot++)
    for (let t = 0; t < terms; t++) {
      if ((slot + t) % (t + 1) !== 0) continue;
      const weight = Math.fround(((slot * 31 + t * 17) % 997) / 400);
      postings.add(t * 7919 + 1, slot, weight);
      const m = model.get(t * 7919 + 1) ?? { slots: [], weights: [] };
      model.set(t * 7919 + 1, m);
      m.slots.push(slot);
      m.weights.push(weight);
    }
}

function expectSame(postings: Postings, model: Model): void {
  expect(postings.terms).toBe(model.size);
  for (const [term, m] of model) {
    const view = postings.get(term)!;
    expect(view.len).toBe(m.slots.length);
    expect([...view.slots]).toEqual(m.slots);
    expect([...view.weights]).toEqual(m.weights);
    expect(view.max).toBe(Math.max(...m.weights));
  }
}

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
    const pinned = postings.pinned().map(({ term, slots, weights }) => ({ term, slots, weights, copy: [[...slots], [...weights]] }));
    fill(postings, model, 300, 3000);
    for (const p of pinned) expect([[...p.slots], [...p.weights]]).toEqual(p.copy);
    postings.unpin();
    fill(postings, model, 3000, 5000);
    expectSame(postings, model);
  });

  it('carry on after a restore: each term added whole, then appended to', () => {
    const source = new Postings();
    const model: Model = new Map();
    fill(source, model, 0, 5000);
    const restored = new Postings();
    for (const { term, slots, weights } of source.pinned()) restored.addAll(term, slots, weights);
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
});
