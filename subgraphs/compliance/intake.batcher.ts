// Group commit with answers, for the intake: events that arrive while a batch is being written
// (a durable consumer hands over a pull at once, the REST door and producers call concurrently)
// go together in the next batch, and each caller gets its own event's result. A lone event is
// written on the next turn of the event loop, so nothing waits for a batch to fill. When a batch
// fails, each of its events is tried again on its own, so one bad event never fails the ones it
// happened to share a transaction with (the same rule as platform/db/group-commit.ts).
export function resultBatcher<T, R>(
  write: (batch: readonly T[]) => Promise<readonly R[]>,
  maxBatch: number,
): (item: T) => Promise<R> {
  let pending: { item: T; resolve(r: R): void; reject(err: unknown): void }[] = [];
  let writing = false;
  // Why a turn of the event loop before each batch: the callers a batch answers queue their next
  // event in promise callbacks that run after the answer. Taking the queue at once took the one
  // caller that came back first alone, then the rest: batches alternated between 1 and n-1 (the
  // bench's mean of 32 with 64 callers), and the lone batch paid a whole batch's round trips.
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const drain = async () => {
    writing = true;
    try {
      await nextTurn();
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
        await nextTurn();
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
