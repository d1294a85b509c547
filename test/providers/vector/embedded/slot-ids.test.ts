// The index's ids as bytes: each slot's id and node id read back as given (any length, any
// script), a live id found and a removed one not, a record's consecutive chunks sharing their node
// id's bytes, the table growing through thousands of ids and removals, and copies from a
// snapshot's or a compaction's parts, checked as they are read.
import { describe, expect, it } from 'vitest';
import { SlotIds } from '../../../../src/providers/vector/embedded/slot-ids.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('slot ids', () => {
  it('read back each slot id and node id, find live ids, and forget removed ones', () => {
    const ids = new SlotIds();
    const odd = ['', 'é', '数据块-7', 'x'.repeat(130), 'y'.repeat(20_000)];
    odd.forEach((id, i) => expect(ids.append(id, `node ${i}`)).toBe(i));
    odd.forEach((id, i) => {
      expect(ids.id(i)).toBe(id);
      expect(ids.nodeId(i)).toBe(`node ${i}`);
      expect(ids.slotOf(id)).toBe(i);
    });
    expect(ids.slotOf('xx')).toBe(-1);
    expect(ids.remove('é')).toBe(1);
    expect(ids.remove('é')).toBe(-1);
    expect(ids.slotOf('é')).toBe(-1);
    // The removed slot keeps its bytes; the id comes back at a new slot.
    expect(ids.append('é', 'node again')).toBe(5);
    expect([ids.id(1), ids.id(5), ids.slotOf('é')]).toEqual(['é', 'é', 5]);
    expect(ids.liveIds()).toEqual(['', '数据块-7', 'x'.repeat(130), 'y'.repeat(20_000), 'é']);
    expect(() => ids.append('', 'n')).toThrow('appended while live');
  });

  it("store a record's node id once for its consecutive chunks", () => {
    const ids = new SlotIds();
    ['rec_1', 'rec_1', 'rec_1', 'rec_2', 'rec_1'].forEach((node, i) => ids.append(uuid(i), node));
    const { nodeAt } = ids.parts();
    expect([nodeAt[0] === nodeAt[1], nodeAt[1] === nodeAt[2], nodeAt[2] === nodeAt[3], nodeAt[3] === nodeAt[4]]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([0, 1, 2, 3, 4].map((slot) => ids.nodeId(slot))).toEqual(['rec_1', 'rec_1', 'rec_1', 'rec_2', 'rec_1']);
  });

  it('keep finding ids through table growth and many removals', () => {
    const ids = new SlotIds();
    for (let n = 0; n < 20_000; n++) {
      ids.append(uuid(n), `rec_${n >> 1}`);
      if (n % 3 === 0) ids.remove(uuid(n - 600));
    }
    for (let n = 0; n < 20_000; n += 7) {
      const removed = n % 3 === 0 && n + 600 < 20_000;
      expect(ids.slotOf(uuid(n)), `id ${n}`).toBe(removed ? -1 : n);
    }
    expect(ids.liveIds().length).toBe(20_000 - Math.floor((19_999 - 600) / 3) - 1);
  });

  it('copy from parts: every slot or a selection, live ones findable, without making strings', () => {
    const source = new SlotIds();
    for (let n = 0; n < 10; n++) source.append(uuid(n), `rec_${n >> 1}`);
    source.remove(uuid(3));
    const parts = source.parts();
    const alive = (slot: number) => slot !== 3;
    const all = SlotIds.from(parts, alive);
    expect(all.size).toBe(10);
    expect([all.slotOf(uuid(3)), all.slotOf(uuid(4)), all.id(3), all.nodeId(9)]).toEqual([-1, 4, uuid(3), 'rec_4']);
    const picked = SlotIds.from(parts, () => true, [1, 2, 7]);
    expect([0, 1, 2].map((slot) => [picked.id(slot), picked.nodeId(slot)])).toEqual([
      [uuid(1), 'rec_0'],
      [uuid(2), 'rec_1'],
      [uuid(7), 'rec_3'],
    ]);
    // It carries on: the next chunk of the last record shares its node id.
    picked.append(uuid(8), 'rec_3');
    expect(picked.parts().nodeAt[3]).toBe(picked.parts().nodeAt[2]);
  });

  it('refuse parts whose ids do not lie within the bytes, or hold a live id twice', () => {
    const source = new SlotIds();
    source.append(uuid(1), 'rec_1');
    source.append(uuid(2), 'rec_1');
    const { idAt, nodeAt, bytes } = source.parts();
    expect(() => SlotIds.from({ idAt: Uint32Array.of(idAt[0]!, bytes.length), nodeAt, bytes }, () => true)).toThrow('out of range');
    expect(() => SlotIds.from({ idAt, nodeAt, bytes: bytes.subarray(0, bytes.length - 3) }, () => true)).toThrow('out of range');
    const twice = { idAt: Uint32Array.of(idAt[0]!, idAt[0]!), nodeAt, bytes };
    expect(() => SlotIds.from(twice, () => true)).toThrow('a live id twice');
    // A tombstone may hold the id a live slot holds (a replaced point).
    expect(SlotIds.from(twice, (slot) => slot === 1).slotOf(uuid(1))).toBe(1);
    expect(() => SlotIds.fromStrings([uuid(1), uuid(1)], ['a', 'a'], () => true)).toThrow('appended while live');
    expect(SlotIds.fromStrings([uuid(1), uuid(1)], ['a', 'a'], (slot) => slot === 1).slotOf(uuid(1))).toBe(1);
  });
});
