// Group commit with answers, for the intake: events that arrive while a batch is being written
// (a durable consumer hands over up to 20 at once, the REST door and producers call
// concurrently) go together in the next batch, and each caller gets its own event's result. A
// lone event is written at once, so nothing waits for a batch to fill. When a batch fails, each
// of its events is tried again on its own, so one bad event never fails the ones it happened to
// share a transaction with (the same rule as platform/db/group-commit.ts).
export function resultBatcher<T, R>(
  write: (batch: readonly T[]) => Promise<readonly R[]>,
  maxBatch: number,
): (item: T) => Promise<R> {
  let pending: { item: T; resolve(r: R): void; reject(err: unknown): void }[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    try {
      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch);
        pending = pending.slice(batch.length);
        try {
          const results = await write(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i]!));
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else
            for (const b of batch)
              await write([b.item]).then(
                ([r]) => b.resolve(r!),
                (e: unknown) => b.reject(e),
              );
        }
      }
    } finally {
      writing = false;
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
