// Subscriptions that never lose an event ("pull on notify"). A bus notice is only a wake-up: the
// feed then reads its store after the last position it delivered, one page at a time and only as
// fast as the client takes them. So a subscriber gets every item once and in order whatever the
// bus does (a late, duplicated or lost notice is caught up by the next read), can resume from a
// position (replay from the store, then live, with nothing in between lost), and a slow client
// only delays its own reads: nothing is buffered beyond one page and nothing is dropped.
// Used by the ledger (`ledgerEventAppended(afterSeq)`) and the workflow service
// (`workflowStatusChanged(afterVersion)`, `approvalRequested(afterCursor)`).
import type { EventContract, PayloadOf } from '../contracts/event-contract';
import type { Logger } from '../logging/logger';
import { contractBus } from './contract-bus';
import type { EventBus } from './event-bus';

export interface Feed<T, C extends EventContract = EventContract> {
  /** The contract (platform/contracts) of the notices that may concern this feed. */
  contract: C;
  /** Only notices that may concern this feed wake it (malformed ones never reach it). */
  wakes(notice: PayloadOf<C>): boolean;
  /** At most `pageSize` items after `position`, in order. */
  read(position: number): Promise<T[]>;
  pageSize: number;
  positionOf(item: T): number;
  /** The feed ends after this item (e.g. a workflow's final status). */
  last?(item: T): boolean;
}

/**
 * An async iterator over a feed for the GraphQL executor; return() unsubscribes. The bus
 * subscription is live before `start` reads the starting position, so an item committed in
 * between is either at or below that position (not wanted) or announced by a notice (read).
 */
export async function pullOnNotify<T, C extends EventContract>(
  bus: EventBus,
  feed: Feed<T, C>,
  start: () => Promise<number>,
  logger: Pick<Logger, 'warn'> = { warn: () => {} },
): Promise<AsyncIterableIterator<T>> {
  let page: T[] = [];
  let position = 0;
  /** A notice (or the start) arrived since the last read: there may be more to read. */
  let behind = true;
  let done = false;
  let ended = false;
  let wake: (() => void) | undefined;
  // A malformed notice is dropped by the contract bus; that loses nothing, as the next notice
  // (or the end of the subscription) reads everything after the position anyway.
  const unsubscribe = await contractBus(bus, logger).subscribe(feed.contract, (notice) => {
    if (!feed.wakes(notice)) return;
    behind = true;
    const w = wake;
    wake = undefined;
    w?.();
  });
  try {
    position = await start();
  } catch (err) {
    await unsubscribe();
    throw err;
  }
  const finish = async (): Promise<IteratorResult<T>> => {
    if (!done) {
      done = true;
      wake?.();
      await unsubscribe();
    }
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      while (!done) {
        if (ended) return finish();
        if (page.length > 0) {
          const item = page.shift()!;
          position = feed.positionOf(item);
          if (feed.last?.(item)) ended = true;
          return { value: item, done: false };
        }
        if (behind) {
          behind = false;
          page = await feed.read(position);
          // A full page: the store may hold more than one page past it.
          if (page.length === feed.pageSize) behind = true;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
      return { value: undefined, done: true };
    },
    return: finish,
    throw: async (err: unknown) => {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
