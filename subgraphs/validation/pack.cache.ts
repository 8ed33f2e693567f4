// A small LRU with a time-to-live for compiled certified packs, keyed by (pack_id, version).
// Certified pack versions are immutable, so an entry can only go stale by deprecation: the bus
// topic `rulepack.deprecated` drops it at once, and the TTL bounds how long a process that missed
// the event (another process's in-memory bus) keeps running it.

export class TtlLru<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Deletes every entry whose key `matches`. */
  deleteWhere(matches: (key: string) => boolean): number {
    let n = 0;
    for (const key of [...this.entries.keys()]) if (matches(key) && this.entries.delete(key)) n++;
    return n;
  }

  get size(): number {
    return this.entries.size;
  }
}
