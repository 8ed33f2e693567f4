// The events service's REST door (port 8094; the gateway proxies /api/events/...), thin adapters
// over subgraphs/events' service: each handler builds the Caller, calls one service function and
// shapes the JSON (snake_case; events in CloudEvents structured form). Authentication is the
// kernel's hook on the whole prefix.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { cloudEventJson, type EventsService } from '../../subgraphs/events/events.service';
import type { WebhookService } from '../../subgraphs/events/webhooks';
import { registerWebhookRoutes } from './webhooks.routes';
import { registerPlatformGroupRoutes } from './platform-groups.routes';
import type { PlatformGroupsService } from '../../subgraphs/events/platform-groups.service';
import type { DeadLetter, Subscription, Topic } from '../../platform/events/backbone/backbone.types';
import {
  AckBody,
  AckResponse,
  CreateSubscriptionBody,
  DeadLetterList,
  DeadLetterParams,
  DeadLetterSchema,
  DeletedResponse,
  EventList,
  EventsQuery,
  MessageList,
  NackBody,
  NackResponse,
  NameParams,
  PublishBody,
  PublishResponse,
  PullBody,
  RedriveBody,
  RedriveResponse,
  RegisterTopicBody,
  ReplayBody,
  ReplayResponse,
  responses,
  SubscriptionList,
  SubscriptionSchema,
  TenantQuery,
  TopicList,
  TopicSchema,
} from './events.schemas';

function topicJson(t: Topic) {
  return { name: t.name, version: t.version, schema: t.schema, description: t.description, platform: t.platform };
}

function subscriptionJson(s: Subscription) {
  return {
    name: s.name,
    topic: s.topic,
    position: s.position,
    max_deliveries: s.maxDeliveries,
    ack_timeout_ms: s.ackTimeoutMs,
    backoff_ms: s.backoffMs,
  };
}

function deadLetterJson(d: DeadLetter) {
  return {
    subscription: d.subscription,
    position: d.position,
    attempts: d.attempts,
    last_error: d.lastError,
    dead_at: d.deadAt,
    event: cloudEventJson(d.event),
  };
}

const topics = ['topics'];
const subscriptions = ['subscriptions'];
const dlq = ['dead-letter queue'];

export function registerEventsRoutes(
  routes: FastifyInstance,
  service: EventsService,
  webhooks?: WebhookService,
  platformGroups?: PlatformGroupsService,
): void {
  // Webhook endpoints, their delivery log and the signing keys (webhooks.routes.ts).
  if (webhooks) registerWebhookRoutes(routes, webhooks);
  // Operators: the platform's consumer groups and their dead letters (platform-groups.routes.ts).
  if (platformGroups) registerPlatformGroupRoutes(routes, platformGroups);

  routes.get<{ Querystring: TenantQuery }>(
    '/topics',
    {
      schema: {
        tags: topics,
        summary: "The catalog: the platform's topics and the tenant's own",
        querystring: TenantQuery,
        response: responses(TopicList),
      },
    },
    async (request) => ({ topics: (await service.topics(callerOf(request), request.query.tenant_id)).map(topicJson) }),
  );

  routes.get<{ Params: NameParams; Querystring: TenantQuery }>(
    '/topics/:name',
    {
      schema: {
        tags: topics,
        summary: 'A topic and its JSON Schema',
        params: NameParams,
        querystring: TenantQuery,
        response: responses(TopicSchema),
      },
    },
    async (request) => topicJson(await service.topic(callerOf(request), request.params.name, request.query.tenant_id)),
  );

  routes.post<{ Body: RegisterTopicBody }>(
    '/topics',
    {
      schema: {
        tags: topics,
        summary: "Registers a tenant's own topic with its payload's JSON Schema",
        body: RegisterTopicBody,
        response: { ...responses(TopicSchema), 201: TopicSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const topic = await service.registerTopic(callerOf(request), {
        name: b.name,
        schema: b.schema,
        description: b.description,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(topicJson(topic));
    },
  );

  routes.get<{ Params: NameParams; Querystring: EventsQuery }>(
    '/topics/:name/events',
    {
      schema: {
        tags: topics,
        summary: "A page of the topic's events after a position, in order (replay by reading)",
        params: NameParams,
        querystring: EventsQuery,
        response: responses(EventList),
      },
    },
    async (request) => {
      const q = request.query;
      const events = await service.events(callerOf(request), {
        topic: request.params.name,
        afterPosition: q.after_position,
        limit: q.limit,
        tenantId: q.tenant_id,
      });
      return { events: events.map(cloudEventJson) };
    },
  );

  routes.post<{ Body: PublishBody }>(
    '/publish',
    {
      schema: {
        tags: topics,
        summary:
          "Publishes one event: 422 naming the JSON pointer when data breaks the topic's schema, 413 over the size limit, 429 over the rate or storage quota",
        body: PublishBody,
        response: { ...responses(PublishResponse), 201: PublishResponse },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { event, duplicate } = await service.publish(callerOf(request), {
        topic: b.topic,
        data: b.data ?? null,
        id: b.id,
        source: b.source,
        type: b.type,
        subject: b.subject,
        time: b.time,
        traceparent: b.traceparent,
        tenantId: b.tenant_id,
      });
      return reply.code(duplicate ? 200 : 201).send({ event: cloudEventJson(event), duplicate });
    },
  );

  routes.get<{ Querystring: TenantQuery }>(
    '/subscriptions',
    {
      schema: {
        tags: subscriptions,
        summary: "The tenant's durable subscriptions",
        querystring: TenantQuery,
        response: responses(SubscriptionList),
      },
    },
    async (request) => ({
      subscriptions: (await service.subscriptions(callerOf(request), request.query.tenant_id)).map(subscriptionJson),
    }),
  );

  routes.post<{ Body: CreateSubscriptionBody }>(
    '/subscriptions',
    {
      schema: {
        tags: subscriptions,
        summary: 'Creates a durable subscription (a consumer group) on a topic',
        body: CreateSubscriptionBody,
        response: { ...responses(SubscriptionSchema), 201: SubscriptionSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const sub = await service.createSubscription(callerOf(request), {
        name: b.name,
        topic: b.topic,
        fromPosition: b.from_position,
        maxDeliveries: b.max_deliveries,
        ackTimeoutMs: b.ack_timeout_ms,
        backoffMs: b.backoff_ms,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(subscriptionJson(sub));
    },
  );

  routes.get<{ Params: NameParams; Querystring: TenantQuery }>(
    '/subscriptions/:name',
    {
      schema: {
        tags: subscriptions,
        summary: 'A subscription',
        params: NameParams,
        querystring: TenantQuery,
        response: responses(SubscriptionSchema),
      },
    },
    async (request) =>
      subscriptionJson(await service.subscription(callerOf(request), request.params.name, request.query.tenant_id)),
  );

  routes.delete<{ Params: NameParams; Querystring: TenantQuery }>(
    '/subscriptions/:name',
    {
      schema: {
        tags: subscriptions,
        summary: 'Deletes a subscription and its queue (dead letters included)',
        params: NameParams,
        querystring: TenantQuery,
        response: responses(DeletedResponse),
      },
    },
    async (request) => {
      await service.deleteSubscription(callerOf(request), request.params.name, request.query.tenant_id);
      return { deleted: true };
    },
  );

  routes.post<{ Params: NameParams; Body: PullBody }>(
    '/subscriptions/:name/pull',
    {
      schema: {
        tags: subscriptions,
        summary:
          'Leases up to max messages to this consumer (competing consumers share the group); order is kept per subject',
        params: NameParams,
        body: PullBody,
        response: responses(MessageList),
      },
    },
    async (request) => {
      const messages = await service.pull(
        callerOf(request),
        request.params.name,
        request.body.max,
        request.body.tenant_id,
      );
      return {
        messages: messages.map((m) => ({ lease_id: m.leaseId, attempt: m.attempt, event: cloudEventJson(m.event) })),
      };
    },
  );

  routes.post<{ Params: NameParams; Body: AckBody }>(
    '/subscriptions/:name/ack',
    {
      schema: {
        tags: subscriptions,
        summary: 'Acknowledges leased messages; an unknown or expired lease is left out of the answer',
        params: NameParams,
        body: AckBody,
        response: responses(AckResponse),
      },
    },
    async (request) => ({
      acked: await service.ack(callerOf(request), request.params.name, request.body.lease_ids, request.body.tenant_id),
    }),
  );

  routes.post<{ Params: NameParams; Body: NackBody }>(
    '/subscriptions/:name/nack',
    {
      schema: {
        tags: subscriptions,
        summary:
          'Gives a message back: redelivered after an exponential backoff, or dead-lettered after its last delivery',
        params: NameParams,
        body: NackBody,
        response: responses(NackResponse),
      },
    },
    async (request) => {
      const b = request.body;
      return { state: await service.nack(callerOf(request), request.params.name, b.lease_id, b.error, b.tenant_id) };
    },
  );

  routes.post<{ Params: NameParams; Body: ReplayBody }>(
    '/subscriptions/:name/replay',
    {
      schema: {
        tags: subscriptions,
        summary: 'Delivers the events again from a position (after_position) or a time (exactly one)',
        params: NameParams,
        body: ReplayBody,
        response: responses(ReplayResponse),
      },
    },
    async (request) => {
      const b = request.body;
      const from = { afterPosition: b.after_position, time: b.time };
      return { position: await service.replay(callerOf(request), request.params.name, from, b.tenant_id) };
    },
  );

  routes.get<{ Params: NameParams; Querystring: EventsQuery }>(
    '/subscriptions/:name/dlq',
    {
      schema: {
        tags: dlq,
        summary: "The subscription's dead letters, oldest first",
        params: NameParams,
        querystring: EventsQuery,
        response: responses(DeadLetterList),
      },
    },
    async (request) => {
      const q = request.query;
      const dead = await service.deadLetters(
        callerOf(request),
        request.params.name,
        { afterPosition: q.after_position, limit: q.limit },
        q.tenant_id,
      );
      return { dead_letters: dead.map(deadLetterJson) };
    },
  );

  routes.get<{ Params: DeadLetterParams; Querystring: TenantQuery }>(
    '/subscriptions/:name/dlq/:position',
    {
      schema: {
        tags: dlq,
        summary: 'One dead letter: its event, attempts and last error',
        params: DeadLetterParams,
        querystring: TenantQuery,
        response: responses(DeadLetterSchema),
      },
    },
    async (request) =>
      deadLetterJson(
        await service.deadLetter(
          callerOf(request),
          request.params.name,
          request.params.position,
          request.query.tenant_id,
        ),
      ),
  );

  routes.post<{ Params: NameParams; Body: RedriveBody }>(
    '/subscriptions/:name/dlq/redrive',
    {
      schema: {
        tags: dlq,
        summary: 'Puts dead letters (all, or those at positions) back on the queue; audited in the ledger',
        params: NameParams,
        body: RedriveBody,
        response: responses(RedriveResponse),
      },
    },
    async (request) => ({
      redriven: await service.redrive(
        callerOf(request),
        request.params.name,
        request.body.positions,
        request.body.tenant_id,
      ),
    }),
  );
}
