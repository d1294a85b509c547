// The embedded index's chunk id and node id for each slot, as UTF-8 bytes in one buffer that grows
// in place (growable-array.ts), with an open-addressing hash table from a live chunk id to its
// slot. As strings (flat, ~56 bytes of V8 heap each for a UUID) in arrays and a Map they took
// about 20 MB of V8 heap at 197,621 chunks (docs/eval.md, "Issue 29: the index in memory"); here
// an id is its bytes and a length byte, and the chunks of one record, which follow each other,
// share their node id's bytes. A string is made only when an id is asked for (a search's hits).
import { growableArray, withRoom } from './growable-array.js';
import { runSteps } from '../../../lib/yield-often.js';

/** The ids of slots 0 to `idAt.length` as a snapshot holds them: where each slot's id and node id start in `bytes`. */
export interface SlotIdsParts {
  idAt: Uint32Array;
  nodeAt: Uint32Array;
  /** Each string as its UTF-8 length (LEB128: a byte below 128) then its bytes. */
  bytes: Uint8Array;
}

/** Elements to reserve address space for when an array of n grows: room to grow in place for a long while. */
const reserveFor = (n: number, floor: number) => Math.max(floor, n * 8);
/** Ids read between pauses when ids are read in steps (SlotIds.reading). */
const IDS_PER_STEP = 4096;
const FREE = -1;
const DELETED = -2;

/** 32-bit FNV-1a of bytes. */
function hashOf(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The bytes of the string stored at `at` in `bytes` (after its length); throws when they do not lie within. */
function stringAt(bytes: Uint8Array, at: number): Uint8Array {
  let n = 0;
  let i = at;
  for (let shift = 0, b = 128; b & 128; shift += 7) {
    if (!(i < bytes.length) || shift > 28) throw new Error('id out of range');
    b = bytes[i++]!;
    n += (b & 127) * 2 ** shift;
  }
  if (i + n > bytes.length) throw new Error('id out of range');
  return bytes.subarray(i, i + n);
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(a, b) === 0;

export class SlotIds {
  private bytes = growableArray(Uint8Array, 1 << 16, 64 << 20);
  private used = 0;
  private idAt = growableArray(Uint32Array, 1024, 1 << 22);
  private nodeAt = growableArray(Uint32Array, 1024, 1 << 22);
  private count = 0;
  /** Open addressing: a live id's slot, FREE or DELETED; at most half full, DELETED counted. */
  private table = new Int32Array(1024).fill(FREE);
  private filled = 0;
  private live = 0;
  /** A string being looked up or stored, as UTF-8. */
  private scratch = Buffer.alloc(256);
  private lastNodeId: string | undefined;
  private text = Buffer.alloc(0);

  /** Slots held (live or not). */
  get size(): number {
    return this.count;
  }

  /** `value` as UTF-8 in the scratch buffer (a view, good until the next call). */
  private encode(value: string): Uint8Array {
    const n = Buffer.byteLength(value, 'utf8');
    if (n > this.scratch.length) this.scratch = Buffer.alloc(n * 2);
    return this.scratch.subarray(0, this.scratch.write(value, 0, 'utf8'));
  }

  /** Stores a string's bytes after their length (LEB128); returns where it starts. */
  private store(value: Uint8Array): number {
    const at = this.used;
    const end = at + value.length + 5;
    this.bytes = withRoom(this.bytes, end, reserveFor(end, 64 << 20));
    let i = at;
    for (let rest = value.length; ; rest = Math.floor(rest / 128)) {
      this.bytes[i++] = rest < 128 ? rest : (rest & 127) | 128;
      if (rest < 128) break;
    }
    this.bytes.set(value, i);
    this.used = i + value.length;
    return at;
  }

  /** The table position holding `key` as a live id, or the FREE one where it would go. */
  private find(key: Uint8Array): { at: number; found: boolean } {
    const mask = this.table.length - 1;
    for (let at = hashOf(key) & mask; ; at = (at + 1) & mask) {
      const slot = this.table[at]!;
      if (slot === FREE) return { at, found: false };
      if (slot !== DELETED && sameBytes(stringAt(this.bytes, this.idAt[slot]!), key)) return { at, found: true };
    }
  }

  /** A new slot, its id and node id stored by the caller. */
  private newSlot(): number {
    const slot = this.count++;
    this.idAt = withRoom(this.idAt, slot + 1, reserveFor(slot + 1, 1 << 22));
    this.nodeAt = withRoom(this.nodeAt, slot + 1, reserveFor(slot + 1, 1 << 22));
    return slot;
  }

  /** Makes `slot`'s id findable, at `at` (where find() said it would go). */
  private index(at: number, slot: number): void {
    this.table[at] = slot;
    this.filled++;
    this.live++;
    if (this.filled * 2 > this.table.length) this.rehash();
  }

  private rehash(): void {
    let size = 1024;
    while (size < this.live * 4) size *= 2;
    const table = new Int32Array(size).fill(FREE);
    const mask = size - 1;
    for (const slot of this.table) {
      if (slot < 0) continue;
      let at = hashOf(stringAt(this.bytes, this.idAt[slot]!)) & mask;
      while (table[at] !== FREE) at = (at + 1) & mask;
      table[at] = slot;
    }
    this.table = table;
    this.filled = this.live;
  }

  /**
   * Gives the next slot `id` and `nodeId`, live (its id findable: remove the id first if it is
   * live) or not (a tombstone read back from a snapshot). Returns the slot.
   */
  append(id: string, nodeId: string, live = true): number {
    const key = this.encode(id);
    let at: number | undefined;
    if (live) {
      const found = this.find(key);
      if (found.found) throw new Error(`id ${id} appended while live`);
      at = found.at;
    }
    const slot = this.newSlot();
    this.idAt[slot] = this.store(key);
    // A record's chunks come one after another: its node id's bytes are stored once for them all.
    this.nodeAt[slot] = slot > 0 && nodeId === this.lastNodeId ? this.nodeAt[slot - 1]! : this.store(this.encode(nodeId));
    this.lastNodeId = nodeId;
    if (at !== undefined) this.index(at, slot);
    return slot;
  }

  /** The live slot of `id`, or -1. */
  slotOf(id: string): number {
    const { at, found } = this.find(this.encode(id));
    return found ? this.table[at]! : -1;
  }

  /** Takes `id` out of the table (its slot keeps its bytes); returns its slot, or -1 when it was not live. */
  remove(id: string): number {
    const { at, found } = this.find(this.encode(id));
    if (!found) return -1;
    const slot = this.table[at]!;
    this.table[at] = DELETED;
    this.live--;
    return slot;
  }

  private decode(at: number): string {
    let from = at + 1;
    let to = from + this.bytes[at]!;
    if (this.bytes[at]! & 128) {
      const value = stringAt(this.bytes, at);
      [from, to] = [value.byteOffset - this.bytes.byteOffset, value.byteOffset - this.bytes.byteOffset + value.length];
    }
    // One Buffer over the bytes, made again only once they have grown: a Buffer made per string
    // cost ~1 µs, ten times the decoding (a brief's 300 hits are 600 strings).
    if (this.text.buffer !== this.bytes.buffer || this.text.length < to)
      this.text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length);
    return this.text.toString('utf8', from, to);
  }

  id(slot: number): string {
    return this.decode(this.idAt[slot]!);
  }

  nodeId(slot: number): string {
    return this.decode(this.nodeAt[slot]!);
  }

  /** Every live id, in slot order. */
  liveIds(): string[] {
    const slots = this.table.filter((slot) => slot >= 0).sort();
    return Array.from(slots, (slot) => this.id(slot));
  }

  /** Slots 0 to `slots` as they are: views that hold still (bytes and slots are only appended). */
  parts(slots = this.count): SlotIdsParts {
    return { idAt: this.idAt.subarray(0, slots), nodeAt: this.nodeAt.subarray(0, slots), bytes: this.bytes.subarray(0, this.used) };
  }

  /**
   * The ids of `parts` (a snapshot's, or an index's being compacted), every slot's or those of
   * `slots` in that order, copied as bytes (no string is made), the ones `live` says findable.
   * Throws when an id does not lie within the bytes or a live id is there twice.
   */
  static from(parts: SlotIdsParts, live: (slot: number) => boolean, slots?: ArrayLike<number>): SlotIds {
    return runSteps(SlotIds.reading(parts, live, slots));
  }

  /** from(), pausing every few thousand ids: for a yielding runner (a compaction in a serving process). */
  static *reading(parts: SlotIdsParts, live: (slot: number) => boolean, slots?: ArrayLike<number>): Generator<void, SlotIds, void> {
    const ids = new SlotIds();
    const n = slots ? slots.length : parts.idAt.length;
    for (let i = 0; i < n; i++) {
      if (i % IDS_PER_STEP === IDS_PER_STEP - 1) yield;
      const from = slots ? slots[i]! : i;
      const id = stringAt(parts.bytes, parts.idAt[from]!);
      let at: number | undefined;
      if (live(from)) {
        const found = ids.find(id);
        if (found.found) throw new Error('a live id twice');
        at = found.at;
      }
      const slot = ids.newSlot();
      ids.idAt[slot] = ids.store(id);
      const sameNode = i > 0 && parts.nodeAt[from] === parts.nodeAt[slots ? slots[i - 1]! : i - 1];
      ids.nodeAt[slot] = sameNode ? ids.nodeAt[slot - 1]! : ids.store(stringAt(parts.bytes, parts.nodeAt[from]!));
      if (at !== undefined) ids.index(at, slot);
    }
    if (ids.count > 0) ids.lastNodeId = ids.nodeId(ids.count - 1);
    return ids;
  }

  /** Ids from strings (a format-3 snapshot's), every slot's, the ones `live` says findable. */
  static fromStrings(idList: string[], nodeIdList: string[], live: (slot: number) => boolean): SlotIds {
    const ids = new SlotIds();
    idList.forEach((id, slot) => ids.append(id, nodeIdList[slot]!, live(slot)));
    return ids;
  }
}
