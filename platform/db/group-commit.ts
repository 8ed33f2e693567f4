// Group commit for writes that belong to no other transaction (an audit row per validation run or
// AI call): items that arrive while a write is in flight go out together in the next one, and
// each caller is answered only once its own item is committed. A lone item is written at once, so
// nothing waits for a batch to fill. When a shared write fails, each item of it is written again
// on its own, so one bad item never fails the calls it happened to share a statement with.
//
// Pipelining (`maxInFlight` > 1): while one group's commit is on its way (a round trip and a WAL
// flush during which this process has nothing to do for those callers), the next group starts on
// another pooled connection instead of waiting for it; PostgreSQL flushes concurrent commits
// together. Groups in flight commit in any order, which is no new freedom: they carry the records
// of concurrent calls, and a caller that waits for its answer before calling again still gets its
// records written in order. With one connection (PGlite) leave it at 1.
export interface GroupCommitOptions {
  /** The most items in one write. */
  maxBatch: number;
  /** How many writes may be in flight at once (default 1: the next group waits for the previous). */
  maxInFlight?: number;
}

export function groupCommit<T>(
  write: (batch: readonly T[]) => Promise<unknown>,
  options: number | GroupCommitOptions,
): (item: T) => Promise<void> {
  const { maxBatch, maxInFlight = 1 } = typeof options === 'number' ? { maxBatch: options } : options;
  let pending: { item: T; resolve(): void; reject(err: unknown): void }[] = [];
  let inFlight = 0;
  const drain = async () => {
    inFlight++;
    try {
      while (pending.length > 0) {
        const batch = pending.length <= maxBatch ? pending : pending.slice(0, maxBatch);
        pending = batch === pending ? [] : pending.slice(batch.length);
        try {
          await write(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else for (const b of batch) await write([b.item]).then(() => b.resolve(), b.reject);
        }
      }
    } finally {
      inFlight--;
    }
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (inFlight < maxInFlight) void drain();
    });
}
