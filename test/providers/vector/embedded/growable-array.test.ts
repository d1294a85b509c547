// Typed arrays that grow in place: within their reservation the same array grows and views taken
// before hold what they held; past it, or where no reservation can be made, a copy carries on.
import { describe, expect, it } from 'vitest';
import { growableArray, withRoom } from '../../../../src/providers/vector/embedded/growable-array.js';

describe('growable arrays', () => {
  it('grow in place within their reservation, views taken before unchanged', () => {
    const a = growableArray(Int32Array, 4, 1000);
    a.set([1, 2, 3, 4]);
    const view = a.subarray(1, 3);
    const grown = withRoom(a, 600, 1000);
    expect(grown).toBe(a);
    expect(grown.length).toBe(600);
    grown[599] = 7;
    expect([...grown.subarray(0, 5)]).toEqual([1, 2, 3, 4, 0]);
    expect([...view]).toEqual([2, 3]);
    // Enough room already: nothing changes.
    expect(withRoom(a, 10, 1000)).toBe(a);
    expect(a.length).toBe(600);
  });

  it('move to a new array, reserved anew, once past their reservation', () => {
    const a = growableArray(Uint16Array, 3, 8);
    a.set([5, 6, 7]);
    const moved = withRoom(a, 20, 4000);
    expect(moved).not.toBe(a);
    expect(moved).toBeInstanceOf(Uint16Array);
    expect([...moved.subarray(0, 4)]).toEqual([5, 6, 7, 0]);
    expect(a.length).toBe(3);
    expect(withRoom(moved, 3000, 4000)).toBe(moved);
  });

  it('are ordinary arrays, copied to grow, where no reservation can be made', () => {
    // More than a resizable buffer may reserve: the array is an ordinary one.
    const a = growableArray(Float32Array, 2, 2 ** 40);
    expect((a.buffer as ArrayBuffer & { resizable?: boolean }).resizable).toBeFalsy();
    a.set([0.5, 1.5]);
    const grown = withRoom(a, 5, 2 ** 40);
    expect(grown).not.toBe(a);
    expect([...grown]).toEqual([0.5, 1.5, 0, 0, 0]);
  });

  it('grow by half again when asked for one more element, so appending n elements grows them about log(n) times', () => {
    for (const reserve of [1 << 20, 2 ** 40]) {
      // Reserved (grown in place) and not (copied to grow).
      let a = growableArray(Uint32Array, 1024, reserve);
      let grew = 0;
      for (let n = 1; n <= 100_000; n++) {
        const before = a.length;
        a = withRoom(a, n, reserve);
        a[n - 1] = n;
        if (a.length !== before) grew++;
      }
      expect(a[99_999]).toBe(100_000);
      expect(a[1023]).toBe(1024);
      expect(grew).toBeLessThan(15);
    }
  });
});
