// `subscription ledgerEventAppended(eventType)` over graphql-ws on the ledger's own /graphql path
// (same port as REST and the HTTP subgraph). The router connects as a graphql-ws client and passes
// the end user's credentials in connectionParams: `authorization` ("Bearer <jwt>") and, for
// anonymous gateway traffic, `x-tenant-id`. Each subscriber gets only its tenant's events.
//
// Feeding: after each group commit the ledger publishes `ledger.event_appended` ({id, tenant_id,
// seq, event_type}) on the event bus; every ledger process (NATS or PostgreSQL NOTIFY) hears it,
// filters by the subscriber's tenant and type, and loads the event through the service (which
// repeats the tenant check), so a subscription works whichever process took the append.
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

export interface AppendedNotice {
  id: string;
  tenant_id: string;
  seq: number;
  event_type: string;
}

/** A push-to-pull queue: bus callbacks push, the GraphQL executor pulls; return() unsubscribes. */
function appendedEvents(bus: EventBus, service: LedgerService, caller: Caller, tenantId: string, eventType: string | undefined): AsyncIterableIterator<LedgerEvent> {
  const buffered: LedgerEvent[] = [];
  let waiting: ((r: IteratorResult<LedgerEvent>) => void) | undefined;
  let done = false;
  // Notices arrive in commit order; loading each keeps that order by chaining the loads.
  let chain = Promise.resolve();
  const push = (event: LedgerEvent) => {
    if (done) return;
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w({ value: event, done: false });
    } else if (buffered.length < 1000) buffered.push(event);
  };
  const unsubscribe = bus.subscribe(EVENT_APPENDED_TOPIC, (payload) => {
    const notice = payload as AppendedNotice;
    if (notice.tenant_id !== tenantId || (eventType !== undefined && notice.event_type !== eventType)) return;
    chain = chain.then(async () => {
      const event = await service.eventForSubscriber(caller, notice.tenant_id, notice.id).catch(() => undefined);
      if (event) push(event);
    });
  });
  const finish = async (): Promise<IteratorResult<LedgerEvent>> => {
    done = true;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    await (await unsubscribe)();
    return { value: undefined, done: true };
  };
  return {
    async next() {
      await unsubscribe;
      if (buffered.length > 0) return { value: buffered.shift()!, done: false };
      if (done) return { value: undefined, done: true };
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: async (err: unknown) => {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
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
        subscribeAppends: async (eventType) => {
          // The same tenant rule as every read: another tenant only with platform rights.
          const tenantId = await service.subscriptionTenant(caller, askedTenant(params));
          return appendedEvents(bus, service, { ...caller, headerTenant: caller.auth ? caller.headerTenant : tenantId }, tenantId, eventType);
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
