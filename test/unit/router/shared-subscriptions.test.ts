// router/subscriptions/shared.subscriptions.ts: identical subscriptions share one forwarded run
// while it has delivered nothing; the last member leaving ends it; a lagging member is cut off
// alone; the run's end completes every member.
import type { ExecutionResult } from 'graphql';
import { MAX_PENDING, SharedSubscriptions, type StartRun } from '../../../router/subscriptions/shared.subscriptions';

/** A source the test pushes results into; records its starts and whether its signal aborted. */
function source() {
  const runs: { signal: AbortSignal; push(r: ExecutionResult): void; end(): void }[] = [];
  const start: StartRun = (signal) => {
    const queue: ExecutionResult[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    const poke = () => {
      wake?.();
      wake = undefined;
    };
    runs.push({
      signal,
      push: (r) => {
        queue.push(r);
        poke();
      },
      end: () => {
        ended = true;
        poke();
      },
    });
    signal.addEventListener('abort', () => runs.at(-1) && poke());
    return (async function* () {
      for (;;) {
        const r = queue.shift();
        if (r) yield r;
        else if (ended || signal.aborted) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    })();
  };
  return { runs, start };
}

const tick = () => new Promise((r) => setImmediate(r));
const result = (n: number): ExecutionResult => ({ data: { n } });

describe('SharedSubscriptions', () => {
  it('runs identical subscriptions once and hands each result to every member', async () => {
    const shared = new SharedSubscriptions();
    const { runs, start } = source();
    const delivered: number[] = [];
    const a = shared.subscribe('k', start, {
      signal: new AbortController().signal,
      beforeDeliver: () => delivered.push(1),
    });
    const b = shared.subscribe('k', start, { signal: new AbortController().signal });
    const other = shared.subscribe('other', start, { signal: new AbortController().signal });
    expect(runs).toHaveLength(2);
    runs[0]!.push(result(1));
    expect((await a.next()).value).toEqual(result(1));
    expect((await b.next()).value).toEqual(result(1));
    expect(delivered).toEqual([1]);
    await Promise.all([a.return(), b.return(), other.return()]);
  });

  it('starts a new run for a subscriber that comes after the first result', async () => {
    const shared = new SharedSubscriptions();
    const { runs, start } = source();
    const a = shared.subscribe('k', start, { signal: new AbortController().signal });
    runs[0]!.push(result(1));
    await a.next();
    expect(shared.joinableRuns).toBe(0);
    const late = shared.subscribe('k', start, { signal: new AbortController().signal });
    expect(runs).toHaveLength(2);
    runs[0]!.push(result(2));
    runs[1]!.push(result(3));
    expect((await a.next()).value).toEqual(result(2));
    expect((await late.next()).value).toEqual(result(3));
    await Promise.all([a.return(), late.return()]);
  });

  it('ends the run when its last member leaves, by return() or by its signal', async () => {
    const shared = new SharedSubscriptions();
    const { runs, start } = source();
    const connection = new AbortController();
    const a = shared.subscribe('k', start, { signal: new AbortController().signal });
    shared.subscribe('k', start, { signal: connection.signal });
    await a.return();
    expect(runs[0]!.signal.aborted).toBe(false);
    connection.abort();
    expect(runs[0]!.signal.aborted).toBe(true);
    expect(shared.joinableRuns).toBe(0);
    // A pending next() of a member whose connection ended completes.
    const c = new AbortController();
    const waiting = shared.subscribe('k2', start, { signal: c.signal });
    const next = waiting.next();
    c.abort();
    await expect(next).resolves.toEqual({ value: undefined, done: true });
  });

  it('cuts off a member that lags too far behind, and only that one', async () => {
    const shared = new SharedSubscriptions();
    const { runs, start } = source();
    const slow = shared.subscribe('k', start, { signal: new AbortController().signal });
    const fast = shared.subscribe('k', start, { signal: new AbortController().signal });
    const seen: number[] = [];
    const reading = (async () => {
      for await (const r of fast) if ((seen.push((r.data as { n: number }).n), seen.length === MAX_PENDING + 5)) break;
    })();
    for (let i = 0; i < MAX_PENDING + 5; i++) {
      runs[0]!.push(result(i));
      await tick();
    }
    await reading;
    expect(seen).toHaveLength(MAX_PENDING + 5);
    const first = await slow.next();
    expect(first.value?.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect((await slow.next()).done).toBe(true);
  });

  it('completes every member when the run ends, after what was pending', async () => {
    const shared = new SharedSubscriptions();
    const { runs, start } = source();
    const a = shared.subscribe('k', start, { signal: new AbortController().signal });
    runs[0]!.push(result(1));
    runs[0]!.end();
    await tick();
    expect((await a.next()).value).toEqual(result(1));
    expect((await a.next()).done).toBe(true);
  });
});
