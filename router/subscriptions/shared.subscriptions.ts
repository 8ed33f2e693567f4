// Client subscriptions that would be forwarded identically share one forwarded run (issue 35:
// 10,000 idle subscriptions must all hear one event). Subscriptions with the same key (the
// caller, the client's document, operation name and variables: everything the result depends on)
// are members of one run: the subgraph sees one upstream subscription, and each event is completed
// with other subgraphs' fields and shaped to the document once, then handed to every member.
//
// A member joins only a run that has delivered nothing yet. Until its first event, a run's stream
// is what any new subscription of the same key would get (a resume cursor replays the same
// events, a live stream has not started), so joining it loses nothing and replays nothing twice;
// after that, a later subscriber starts a run of its own.
//
// Members are pushed to, not pulled: a member whose client lags more than MAX_PENDING results
// behind is ended with an error (it can resume with its cursor) so the others are never held back.
import { GraphQLError, type ExecutionResult } from 'graphql';

/** Results one member may have waiting before it is cut off as too slow. */
export const MAX_PENDING = 1_000;

export interface MemberOptions {
  /** Ends this member (its connection closed, or the client completed it). */
  signal: AbortSignal;
  /** Called before each result is handed to this member (batches its socket's writes). */
  beforeDeliver?: () => void;
}

/** Starts the one forwarded run of a key; it ends when `signal` aborts (its last member left). */
export type StartRun = (signal: AbortSignal) => AsyncGenerator<ExecutionResult, void, unknown>;

export class SharedSubscriptions {
  /** Runs that may still be joined (nothing delivered yet), by key. */
  private readonly joinable = new Map<string, Run>();

  /** A subscription for one client: a new member of the key's joinable run, or of a new run. */
  subscribe(key: string, start: StartRun, options: MemberOptions): AsyncGenerator<ExecutionResult, void, unknown> {
    let run = this.joinable.get(key);
    if (!run) {
      run = new Run(() => {
        if (this.joinable.get(key) === run) this.joinable.delete(key);
      });
      this.joinable.set(key, run);
      run.start(start);
    }
    return run.join(options);
  }

  /** Runs that can still take members (for tests and figures). */
  get joinableRuns(): number {
    return this.joinable.size;
  }
}

class Run {
  private readonly members = new Set<Member>();
  private readonly stop = new AbortController();

  /** `closed` is called once the run takes no more members (first result, or its end). */
  constructor(private readonly closed: () => void) {}

  start(start: StartRun): void {
    void this.pump(start(this.stop.signal));
  }

  join(options: MemberOptions): AsyncGenerator<ExecutionResult, void, unknown> {
    const member = new Member(options, () => {
      this.members.delete(member);
      // The last member gone ends the upstream subscription at once.
      if (this.members.size === 0) {
        this.closed();
        this.stop.abort();
      }
    });
    this.members.add(member);
    return member.iterator();
  }

  private async pump(source: AsyncGenerator<ExecutionResult, void, unknown>): Promise<void> {
    try {
      for await (const result of source) {
        this.closed();
        for (const m of [...this.members]) m.push(result);
      }
    } catch (err) {
      // forwardSubscription reports failures as results; anything else still reaches each member.
      const error = err instanceof GraphQLError ? err : new GraphQLError('Subscription failed');
      for (const m of [...this.members]) m.push({ errors: [error] });
    } finally {
      this.closed();
      for (const m of [...this.members]) m.end();
    }
  }
}

class Member {
  private readonly pending: ExecutionResult[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  private readonly onAbort = () => this.leave();

  constructor(
    private readonly options: MemberOptions,
    private readonly left: () => void,
  ) {
    if (options.signal.aborted) queueMicrotask(() => this.leave());
    else options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  push(result: ExecutionResult): void {
    if (this.ended) return;
    if (this.pending.length >= MAX_PENDING) {
      this.pending.length = 0;
      this.pending.push({
        errors: [
          new GraphQLError('Subscription ended: the client fell too far behind; resume from its last position', {
            extensions: { code: 'SERVICE_UNAVAILABLE' },
          }),
        ],
      });
      this.leave();
      return;
    }
    this.options.beforeDeliver?.();
    this.pending.push(result);
    this.wakeUp();
  }

  /** The run ended: what is pending is still delivered, then the member completes. */
  end(): void {
    this.leave();
  }

  private leave(): void {
    if (this.ended) return;
    this.ended = true;
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.left();
    this.wakeUp();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  iterator(): AsyncGenerator<ExecutionResult, void, unknown> {
    const next = async (): Promise<IteratorResult<ExecutionResult, void>> => {
      for (;;) {
        const result = this.pending.shift();
        if (result) return { value: result, done: false };
        if (this.ended) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    };
    const finish = async (): Promise<IteratorResult<ExecutionResult, void>> => {
      this.pending.length = 0;
      this.leave();
      return { value: undefined, done: true };
    };
    const it: AsyncGenerator<ExecutionResult, void, unknown> = {
      next,
      return: finish,
      throw: async (err: unknown) => {
        await finish();
        throw err;
      },
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }
}
