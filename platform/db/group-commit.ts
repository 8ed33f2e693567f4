// Group commit for writes that belong to no other transaction (an audit row per validation run or
// AI call): items that arrive while a write is in flight go out together in the next one, and
// each caller is answered only once its own item is committed. A lone item is written at once, so
// nothing waits for a batch to fill. When a shared write fails, each item of it is written again
// on its own, so one bad item never fails the calls it happened to share a statement with.
export function groupCommit<T>(
  write: (batch: readonly T[]) => Promise<unknown>,
  maxBatch: number,
): (item: T) => Promise<void> {
  let pending: { item: T; resolve(): void; reject(err: unknown): void }[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    try {
      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch);
        pending = pending.slice(batch.length);
        try {
          await write(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else for (const b of batch) await write([b.item]).then(() => b.resolve(), b.reject);
        }
      }
    } finally {
      writing = false;
    }
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
