// An async generator's return() waits until the generator next yields or finishes: while it is
// awaiting an upstream event, a client's `complete` (or a closed socket) would be queued behind
// an event that may never come, keeping the upstream subscription open. This wrapper calls
// `stop` first (which ends the upstream iteration, so the generator finishes) and then returns.
export function promptReturn<T>(
  generator: AsyncGenerator<T, void, unknown>,
  stop: () => void,
): AsyncGenerator<T, void, unknown> {
  const wrapped: AsyncGenerator<T, void, unknown> = {
    next: (...args) => generator.next(...args),
    return: (value) => {
      stop();
      return generator.return(value);
    },
    throw: (err) => {
      stop();
      return generator.throw(err);
    },
    [Symbol.asyncIterator]: () => wrapped,
  } as AsyncGenerator<T, void, unknown>;
  return wrapped;
}
