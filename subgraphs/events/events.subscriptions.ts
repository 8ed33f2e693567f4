// `subscription events(topic, afterPosition)` over graphql-ws on the service's own /graphql path.
// Pull on notify (platform/events/pull-on-notify.ts), as the ledger and workflow do: each stored
// event is announced on the process bus (`events.event_published`, after the commit); a notice
// only wakes the subscriptions of its (tenant, topic), which read the stream from the store after
// the last position they delivered. So a subscriber gets every event once and in position order,
// replays from `afterPosition`, then goes live, and resumes where it left off.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { EVENTS_EVENT_PUBLISHED } from '../../platform/contracts/events.events';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { connectionParam, serveSubscriptions } from '../../platform/graphql/subscription-server';
import { eventsContext, type EventsGraphQLContext } from './graphql.context';
import type { EventsService } from './events.service';
import type { EventRecord } from '../../platform/events/backbone/backbone.types';

/** Events read per store query while catching up. */
const PAGE = 200;

export function topicEvents(
  bus: EventBus,
  service: EventsService,
  start: { tenantId: string; topic: string; afterPosition: number },
): Promise<AsyncIterableIterator<EventRecord>> {
  const { tenantId, topic, afterPosition } = start;
  const feed: Feed<EventRecord, typeof EVENTS_EVENT_PUBLISHED> = {
    contract: EVENTS_EVENT_PUBLISHED,
    wakes: (n) => n.tenant_id === tenantId && n.topic === topic,
    read: (after) => service.feedPage(tenantId, topic, after, PAGE),
    pageSize: PAGE,
    positionOf: (e) => e.position,
  };
  return pullOnNotify(bus, feed, async () => afterPosition);
}

export interface EventsSubscriptionOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  service: EventsService;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

export function serveEventsSubscriptions(options: EventsSubscriptionOptions): void {
  const { bus, service } = options;
  serveSubscriptions<EventsGraphQLContext>({
    ...options,
    context: (caller, params) => ({
      ...eventsContext(caller, service, options.requireAuth),
      subscribeEvents: async (topic, afterPosition, tenantId) => {
        // The same tenant rule as every read: another tenant's stream only with platform rights.
        const start = await service.feedStart(
          caller,
          topic,
          afterPosition,
          tenantId ?? connectionParam(params, 'tenantId'),
        );
        return topicEvents(bus, service, start);
      },
    }),
  });
}
