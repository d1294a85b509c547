// A map that keeps its recently used entries, forgetting the least recently used beyond a bound:
// the brief's caches of candidates' text and terms (retrieval/prose-cache.ts, brief/text-terms.ts,
// brief/passage.ts). A Map iterates in insertion order, so the first entry is the one placed
// longest ago. A read only stamps its entry: moving it to the end on every read (a delete and a
// set) cost ~280 ns against ~50, and a brief reads these caches a few thousand times. When the
// bound is passed, the first entry is forgotten unless it was read since it was placed; then it
// moves to the end instead (a second chance), so an entry read outlasts at least max - 1 new ones.

interface Entry<V> {
  value: V;
  /** When it was placed (set, or moved to the end), on the map's own clock. */
  placed: number;
  /** When it was last set or read. */
  used: number;
}

export class RecentMap<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private clock = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, now recently used; undefined when it is not kept. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }

  /** Whether `key` is kept, without counting as a use. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps `value` as the most recently used, forgetting the least recently used past `max`. */
  set(key: K, value: V): void {
    const now = ++this.clock;
    this.entries.delete(key);
    this.entries.set(key, { value, placed: now, used: now });
    while (this.entries.size > this.max) this.forgetOne();
  }

  /** Forgets the first entry not read since it was placed, moving those read to the end. */
  private forgetOne(): void {
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (entry.used <= entry.placed) return;
      entry.placed = ++this.clock;
      this.entries.set(key, entry);
    }
  }
}
