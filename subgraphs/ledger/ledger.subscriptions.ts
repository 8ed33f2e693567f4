// `subscription ledgerEventAppended(eventType, afterSeq)` over graphql-ws on the ledger's own
// /graphql path (same port as REST and the HTTP subgraph). The router connects as a graphql-ws
// client and passes the end user's credentials in connectionParams: `authorization` ("Bearer
// <jwt>") and, for anonymous gateway traffic, `x-tenant-id`. Each subscriber gets only its
// tenant's events.
//
// Feeding: after each group commit the ledger publishes `ledger.event_appended` ({id, tenant_id,
// seq, event_type}) on the event bus, which every ledger process hears (NATS or PostgreSQL
// NOTIFY); a subscription reads its tenant's chain after the last seq it delivered whenever a
// notice wakes it (platform/events/pull-on-notify.ts), so it gets every event once and in chain
// order, and resumes with `afterSeq`.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
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

/** The events of one subscription: the tenant's chain after a seq, woken by append notices. */
export function appendedEvents(bus: EventBus, service: LedgerService, start: FeedStart): Promise<AsyncIterableIterator<LedgerEvent>> {
  const { tenantId, eventType, afterSeq } = start;
  const feed: Feed<LedgerEvent, AppendedNotice> = {
    topic: EVENT_APPENDED_TOPIC,
    wakes: (n) => n.tenant_id === tenantId && (eventType === undefined || n.event_type === eventType),
    read: (after) => service.eventsForSubscriber(tenantId, eventType, after, PAGE),
    pageSize: PAGE,
    positionOf: (e) => e.seq,
  };
  return pullOnNotify(bus, feed, async () => afterSeq ?? service.headSeqForSubscriber(tenantId));
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
