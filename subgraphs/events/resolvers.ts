// The events subgraph's resolvers: thin adapters over events.service (the same calls as REST).
import { InputError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import { callerOf } from './graphql.context';
import type { EventRecord, ReplayFrom } from '../../platform/events/backbone/backbone.types';
import type { ReplayFromInput, Resolvers } from './resolvers.generated';
import { webhookMutation, webhookQuery, webhookTypes } from './webhook.resolvers';
import { platformGroupMutation, platformGroupQuery, platformGroupTypes } from './platform-groups.resolvers';

function replayFrom(from: ReplayFromInput): ReplayFrom {
  return { afterPosition: opt(from.afterPosition), time: opt(from.time) };
}

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    eventTopics: (_, args, ctx) => ctx.service.topics(callerOf(ctx), opt(args.tenantId)),
    eventTopic: (_, args, ctx) => orNull(ctx.service.topic(callerOf(ctx), args.name, opt(args.tenantId))),
    backboneEvents: (_, args, ctx) =>
      ctx.service.events(callerOf(ctx), {
        topic: args.topic,
        afterPosition: opt(args.afterPosition),
        limit: opt(args.limit),
        tenantId: opt(args.tenantId),
      }),
    eventSubscriptions: (_, args, ctx) => ctx.service.subscriptions(callerOf(ctx), opt(args.tenantId)),
    eventSubscription: (_, args, ctx) => orNull(ctx.service.subscription(callerOf(ctx), args.name, opt(args.tenantId))),
    deadLetter: (_, args, ctx) =>
      orNull(ctx.service.deadLetter(callerOf(ctx), args.subscription, args.position, opt(args.tenantId))),
    ...webhookQuery,
    ...platformGroupQuery,
  },
  Mutation: {
    publishEvent: (_, { input }, ctx) =>
      ctx.service.publish(callerOf(ctx), {
        topic: input.topic,
        data: input.data ?? null,
        id: opt(input.id),
        source: opt(input.source),
        type: opt(input.type),
        subject: opt(input.subject),
        time: opt(input.time),
        traceparent: opt(input.traceparent),
        tenantId: opt(input.tenantId),
      }),
    registerEventTopic: (_, { input }, ctx) =>
      ctx.service.registerTopic(callerOf(ctx), {
        name: input.name,
        schema: input.schema,
        description: opt(input.description),
        tenantId: opt(input.tenantId),
      }),
    createEventSubscription: (_, { input }, ctx) =>
      ctx.service.createSubscription(callerOf(ctx), {
        name: input.name,
        topic: input.topic,
        fromPosition: opt(input.fromPosition),
        maxDeliveries: opt(input.maxDeliveries),
        ackTimeoutMs: opt(input.ackTimeoutMs),
        backoffMs: opt(input.backoffMs),
        tenantId: opt(input.tenantId),
      }),
    deleteEventSubscription: async (_, args, ctx) => {
      await ctx.service.deleteSubscription(callerOf(ctx), args.name, opt(args.tenantId));
      return true;
    },
    pullEvents: (_, args, ctx) => ctx.service.pull(callerOf(ctx), args.subscription, opt(args.max), opt(args.tenantId)),
    ackEvents: (_, args, ctx) =>
      ctx.service.ack(callerOf(ctx), args.subscription, [...args.leaseIds], opt(args.tenantId)),
    nackEvent: async (_, args, ctx) =>
      (
        await ctx.service.nack(callerOf(ctx), args.subscription, args.leaseId, opt(args.error), opt(args.tenantId))
      ).toUpperCase(),
    redriveDeadLetters: (_, args, ctx) =>
      ctx.service.redrive(
        callerOf(ctx),
        args.subscription,
        args.positions ? [...args.positions] : undefined,
        opt(args.tenantId),
      ),
    replayEventSubscription: (_, args, ctx) =>
      ctx.service.replay(callerOf(ctx), args.name, replayFrom(args.from), opt(args.tenantId)),
    ...webhookMutation,
    ...platformGroupMutation,
  },
  Subscription: {
    events: {
      subscribe: (_, args, ctx) => {
        callerOf(ctx);
        if (!ctx.subscribeEvents) {
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        }
        return ctx.subscribeEvents(args.topic, opt(args.afterPosition), opt(args.tenantId));
      },
      resolve: (event: EventRecord) => event,
    },
  },
  EventSubscription: {
    deadLetters: (sub, args, ctx) =>
      ctx.service.deadLetters(
        callerOf(ctx),
        sub.name,
        { afterPosition: opt(args.afterPosition), limit: opt(args.limit) },
        sub.tenantId,
      ),
  },
  ...webhookTypes,
  ...platformGroupTypes,
} satisfies Resolvers;
