// A Map bounded to its most recently used entries: the config service's serialised answers and
// CachedConfig's per-tenant copies. A Map iterates in insertion order, so re-inserting on every
// read keeps the least recently used key first, where eviction takes it. A read of the key that
// is already the most recently used moves nothing (the move, a delete and a set, would leave the
// order as it is): the common case of a hot key read again and again costs one Map lookup.

export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  /** The key last put at the end of `entries`, while it is there (undefined: unknown). */
  private newest: K | undefined;

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('an LRU holds at least one entry');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined || key === this.newest) return value;
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    return value;
  }

  /** The value without touching its recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Stores the value as the most recently used; returns the keys evicted to make room. */
  set(key: K, value: V): K[] {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    const evicted: K[] = [];
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
      evicted.push(oldest);
    }
    return evicted;
  }

  delete(key: K): boolean {
    if (key === this.newest) this.newest = undefined;
    return this.entries.delete(key);
  }

  keys(): K[] {
    return [...this.entries.keys()];
  }
}
