// Feeding ("pull on notify"): after each group commit the ledger publishes `ledger.event_appended`
// ({id, tenant_id, seq, event_type}) on the event bus, and every ledger process (NATS or
// PostgreSQL NOTIFY) hears it. A notice is only a wake-up: the subscription then reads its
// tenant's chain after the last seq it delivered, in order, from the store. So a subscriber
// gets every event exactly once and in chain order whatever the bus does (a late, duplicated or
// lost notice is caught up by the next read), can resume with `afterSeq` (replay from the
// chain, then live, with nothing in between lost), and a slow client only delays its own reads:
// nothing is buffered beyond one page, nothing dropped.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { EventBus } from '../../platform/events/event-bus';
import type { Caller } from '../../platform/auth/caller';
import { graphqlCaller } from '../../platform/graphql/caller-context';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { ledgerContext, type LedgerGraphQLContext } from './graphql.context';
import type { LedgerService } from './ledger.service';
import type { LedgerEvent } from './ledger.types';

export const EVENT_APPENDED_TOPIC = 'ledger.event_appended';

/** Events read from the chain per store query while catching up. */
const PAGE = 500;

export interface AppendedNotice {
  id: string;
  tenant_id: string;
  seq: number;
  event_type: string;
}

export interface FeedStart {
  tenantId: string;
  eventType: string | undefined;
  /** Replay after this seq; undefined = only events appended from now on. */
  afterSeq: number | undefined;
}

/**
 * The events of one subscription, as an async iterator for the GraphQL executor. The bus
 * subscription is live before the starting point is read, so an event committed in between is
 * either at or below the head read (not wanted) or announced by a notice (read).
 */
export async function appendedEvents(bus: EventBus, service: LedgerService, start: FeedStart): Promise<AsyncIterableIterator<LedgerEvent>> {
  const { tenantId, eventType } = start;
  let page: LedgerEvent[] = [];
  let lastSeq = 0;
  /** A notice (or the start) arrived since the last read: there may be more to read. */
  let behind = true;
  let done = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    behind = true;
    const w = wake;
    wake = undefined;
    w?.();
  };
  const unsubscribe = await bus.subscribe(EVENT_APPENDED_TOPIC, (payload) => {
    const notice = payload as AppendedNotice;
    if (notice.tenant_id !== tenantId || (eventType !== undefined && notice.event_type !== eventType)) return;
    if (notice.seq > lastSeq) notify();
  });
  try {
    lastSeq = start.afterSeq ?? (await service.headSeqForSubscriber(tenantId));
  } catch (err) {
    await unsubscribe();
    throw err;
  }

  const finish = async (): Promise<IteratorResult<LedgerEvent>> => {
    if (!done) {
      done = true;
      wake?.();
      await unsubscribe();
    }
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<LedgerEvent> = {
    async next(): Promise<IteratorResult<LedgerEvent>> {
      while (!done) {
        if (page.length > 0) {
          const event = page.shift()!;
          lastSeq = event.seq;
          return { value: event, done: false };
        }
        if (behind) {
          behind = false;
          page = await service.eventsForSubscriber(tenantId, eventType, lastSeq, PAGE);
          // A full page: the chain may hold more than one page past it.
          if (page.length === PAGE) behind = true;
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

/** The tenant a subscriber names in connectionParams, if any. */
function askedTenant(params: Record<string, unknown>): string | undefined {
  return typeof params.tenantId === 'string' && params.tenantId !== '' ? params.tenantId : undefined;
}

export interface SubscriptionServerOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  service: LedgerService;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
  path?: string;
}

function param(params: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = params[n];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

export function serveSubscriptions(options: SubscriptionServerOptions): void {
  const { app, bus, service, tokens } = options;
  const path = options.path ?? '/graphql';
  const wss = new WebSocketServer({ noServer: true });

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = (request.url ?? '').split('?')[0];
    if (pathname !== path) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });

  const server = useServer<Record<string, unknown>, { caller?: Caller }>({
    schema: options.schema,
    onConnect: async (ctx) => {
      const params = ctx.connectionParams ?? {};
      try {
        const caller = await graphqlCaller({
          authorization: param(params, 'authorization', 'Authorization'),
          tenantHeader: param(params, 'x-tenant-id', 'X-Tenant-ID'),
          correlationId: param(params, 'x-correlation-id') ?? randomUUID(),
        }, tokens);
        if (options.requireAuth && !caller.auth) return false;
        ctx.extra.caller = caller;
        return true;
      } catch {
        return false;
      }
    },
    context: (ctx): LedgerGraphQLContext => {
      const caller = ctx.extra.caller ?? { correlationId: randomUUID() };
      const params = ctx.connectionParams ?? {};
      return {
        ...ledgerContext(caller, service, options.requireAuth),
        subscribeAppends: async (eventType, afterSeq) => {
          // The same tenant rule as every read: another tenant only with platform rights.
          const tenantId = await service.subscriptionTenant(caller, askedTenant(params));
          return appendedEvents(bus, service, { tenantId, eventType, afterSeq });
        },
      };
    },
  }, wss);

  app.addHook('preClose', async () => {
    await server.dispose();
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
