// A map that keeps its most recently used entries, forgetting the least recently used beyond a
// bound: the brief's caches of candidates' text and terms (retrieval/prose-cache.ts,
// brief/text-terms.ts). A Map iterates in insertion order, so an entry used is moved to the end
// and the first one is the one to forget.

export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, now the most recently used; undefined when it is not kept. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Whether `key` is kept, without making it the most recently used. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps `value` as the most recently used, forgetting the least recently used past `max`. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
