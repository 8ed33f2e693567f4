// The events service (issue 26, port 8094): the platform's publish/subscribe backbone. REST routes
// (rest-compat/events, proxied by the gateway under /api/events/...), the events subgraph at
// /graphql and its `events(topic, afterPosition)` subscription over graphql-ws on the same path,
// over one domain service whose catalog is seeded from platform/contracts at start. Webhooks
// (docs/webhooks.md): every event the backbone stores is queued for the tenant's matching
// endpoints in the event's own transaction, and this process's delivery worker sends them.
import { acceptingAsymmetric } from '../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../platform/auth/jwt';
import { contractPublisher } from '../platform/events/contract-bus';
import { EVENTS_EVENT_PUBLISHED } from '../platform/contracts/events.events';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import type { EventsStoreHooks } from '../platform/events/backbone/backbone.store';
import { openEventsStore } from '../platform/events/backbone/jetstream.config';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerEventsRoutes } from '../rest-compat/events';
import { loadEventsConfig, type EventsConfig } from '../subgraphs/events/events.config';
import { createEventsModule } from '../subgraphs/events/events.module';
import { cloudEventJson } from '../subgraphs/events/events.service';
import {
  createWebhookModule,
  loadWebhookConfig,
  WebhookService,
  type WebhookConfig,
} from '../subgraphs/events/webhooks';
import { serveEventsSubscriptions } from '../subgraphs/events/events.subscriptions';
import { eventsContext } from '../subgraphs/events/graphql.context';
import { PlatformGroupsService } from '../subgraphs/events/platform-groups.service';
import { resolvers } from '../subgraphs/events/resolvers';

export interface EventsServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** Settings over the environment's (tests). */
  config?: Partial<EventsConfig>;
  /** Webhook settings over the environment's (tests: a tiny backoff, no jitter). */
  webhooks?: Partial<WebhookConfig>;
}

export function defineEventsService(options: EventsServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'events',
    version: '1.0.0',
    port: 8094,
    subgraph: 'subgraphs/events/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST', 'PATCH', 'DELETE'],
        url: '/api/events/*',
        upstreamPath: '/',
        wildcard: true,
        summary:
          'Topics, publish, subscriptions (pull/ack/nack/replay), the dead-letter queue and webhooks (events service)',
      },
    ],
    async build(deps) {
      const { config: platform, db, env, logger } = deps;
      const config = { ...loadEventsConfig(env), ...options.config };
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      const notices = contractPublisher(bus);
      const webhooks = createWebhookModule({ db, logger, config: { ...loadWebhookConfig(env), ...options.webhooks } });
      // SQL tables unless EVENTS_STORE=jetstream (docs/events.md, "Storage"). On SQL, webhooks are
      // queued with the event, in its transaction: a rolled-back publish sends nothing, a committed
      // one is never lost to a crash between the commit and the queueing.
      const hooks: EventsStoreHooks = {
        afterInsert: async (tx, e) => {
          await webhooks.deliver({ ...cloudEventJson(e), id: e.id, type: e.type, tenantid: e.tenantId }, tx);
        },
      };
      const storage = await openEventsStore(
        env,
        db.sql,
        { natsUrl: platform.natsUrl, namespace: platform.namespace },
        hooks,
      );
      logger.info({ store: storage.kind }, 'events: storage');
      const { service, access } = createEventsModule({
        db,
        config,
        store: storage.store,
        // A notice only wakes live feeds (they read the store), so one lost on a crash loses nothing.
        notify: (e) => {
          // The queue rows are visible now (after the commit): the worker need not wait for its poll.
          webhooks.worker.wake();
          notices
            .publish(EVENTS_EVENT_PUBLISHED, { tenant_id: e.tenantId, topic: e.topic, position: e.position })
            .catch((err: unknown) => logger.warn({ err }, 'events: publish notice failed'));
        },
      });
      const webhookDoors = new WebhookService(webhooks.endpoints, access);
      // Operators' doors on the platform's consumer groups (their dead letters, the redrive).
      const platformGroups = new PlatformGroupsService(db.sql, access);
      // One authenticator for HTTP and the WebSocket: HS256 (legacy) and the OIDC provider's
      // asymmetric tokens from the JWKS, as the gateway accepts them (docs/identity.md).
      const tokens = acceptingAsymmetric(
        new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60),
        platform.auth.oidc,
      );
      const { app, schema } = await buildServiceApp(definition, deps, {
        title: 'Events',
        description:
          'The publish/subscribe backbone (issue 26): a topic catalog with JSON Schemas, CloudEvents 1.0 envelopes, ' +
          'durable subscriptions with pull/ack/nack, a dead-letter queue and replay. Errors use FastAPI shapes.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerEventsRoutes(routes, service, webhookDoors, platformGroups),
        subgraph: {
          resolvers,
          context: (caller) => eventsContext(caller, service, config.requireAuth, webhookDoors, platformGroups),
        },
      });
      serveEventsSubscriptions({ app, schema: schema!, bus, service, tokens, requireAuth: config.requireAuth });
      return {
        app,
        async start() {
          const seeded = await service.seedCatalogue();
          logger.info({ topics: seeded }, 'events: platform topics seeded from the contracts');
          webhooks.worker.start();
        },
        async stop() {
          // Deliveries in flight finish or their leases run out; either way nothing is lost.
          await webhooks.worker.stop();
          await storage.close();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const eventsService: ServiceDefinition = defineEventsService();
