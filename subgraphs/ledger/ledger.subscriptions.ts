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
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { EventBus } from '../../platform/events/event-bus';
import { LEDGER_EVENT_APPENDED, type LedgerEventAppended } from '../../platform/contracts/ledger.events';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { connectionParam, serveSubscriptions } from '../../platform/graphql/subscription-server';
import { ledgerContext, type LedgerGraphQLContext } from './graphql.context';
import type { LedgerProofService } from './ledger-proof.service';
import type { LedgerService } from './ledger.service';
import type { LedgerEvent } from './ledger.types';

/** Events read from the chain per store query while catching up. */
const PAGE = 500;

/** The append notice (the contract's type, under the name the relay uses). */
export type AppendedNotice = LedgerEventAppended;

export interface FeedStart {
  tenantId: string;
  eventType: string | undefined;
  /** Replay after this seq; undefined = only events appended from now on. */
  afterSeq: number | undefined;
}

/** The events of one subscription: the tenant's chain after a seq, woken by append notices. */
export function appendedEvents(
  bus: EventBus,
  service: LedgerService,
  start: FeedStart,
): Promise<AsyncIterableIterator<LedgerEvent>> {
  const { tenantId, eventType, afterSeq } = start;
  const feed: Feed<LedgerEvent, typeof LEDGER_EVENT_APPENDED> = {
    contract: LEDGER_EVENT_APPENDED,
    wakes: (n) => n.tenant_id === tenantId && (eventType === undefined || n.event_type === eventType),
    read: (after) => service.eventsForSubscriber(tenantId, eventType, after, PAGE),
    pageSize: PAGE,
    positionOf: (e) => e.seq,
  };
  return pullOnNotify(bus, feed, async () => afterSeq ?? service.headSeqForSubscriber(tenantId));
}

export interface LedgerSubscriptionOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  service: LedgerService;
  proofs: LedgerProofService;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

export function serveLedgerSubscriptions(options: LedgerSubscriptionOptions): void {
  const { bus, service } = options;
  serveSubscriptions<LedgerGraphQLContext>({
    ...options,
    context: (caller, params) => ({
      ...ledgerContext(caller, service, options.requireAuth, options.proofs),
      subscribeAppends: async (eventType, afterSeq) => {
        // The same tenant rule as every read: another tenant only with platform rights.
        const tenantId = await service.subscriptionTenant(caller, connectionParam(params, 'tenantId'));
        return appendedEvents(bus, service, { tenantId, eventType, afterSeq });
      },
    }),
  });
}
