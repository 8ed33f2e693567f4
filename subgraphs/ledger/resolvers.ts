// The ledger subgraph's resolvers: thin adapters over ledger.service (same functions as REST).
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { InputError } from '../../platform/errors/domain-errors';
import { opt } from '../../platform/graphql/resolver-args';
import { callerOf } from './graphql.context';
import { seqPosition, type EventConnection } from './ledger.service';
import type { EventFilter, LedgerEvent } from './ledger.types';
import type { LedgerEventFilter, Resolvers } from './resolvers.generated';

function filterOf(f: LedgerEventFilter | null | undefined): EventFilter {
  return {
    eventType: opt(f?.eventType),
    userId: opt(f?.userId),
    correlationId: opt(f?.correlationId),
    startTime: opt(f?.startTime),
    endTime: opt(f?.endTime),
  };
}

function connection(c: EventConnection) {
  return {
    edges: c.events.map((e) => ({ cursor: seqPosition.encode(e.seq), node: e })),
    nodes: c.events,
    pageInfo: { hasNextPage: c.hasNextPage, endCursor: c.endCursor },
    // A function: graphql's default resolver calls it only when the field is selected.
    totalCount: c.totalCount,
  };
}

/** What a LedgerEventConnection resolves from (the generated types' mapper). */
export type LedgerEventConnectionNode = ReturnType<typeof connection>;

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    ledgerEvents: async (_, args, ctx) =>
      connection(
        await ctx.service.eventsConnection(callerOf(ctx), {
          tenantId: opt(args.filter?.tenantId),
          filter: filterOf(args.filter),
          first: args.first,
          after: opt(args.after),
        }),
      ),
    ledgerPosition: async (_, args, ctx) => ctx.service.position(callerOf(ctx), opt(args.tenantId)),
    ledgerCheckpoint: async (_, args, ctx) => ctx.proofs.latestCheckpoint(callerOf(ctx), opt(args.tenantId)),
    ledgerInclusionProof: async (_, args, ctx) =>
      ctx.proofs.inclusion(callerOf(ctx), {
        tenantId: opt(args.tenantId),
        entryId: opt(args.entryId),
        seq: opt(args.seq),
        treeSize: opt(args.treeSize),
      }),
    ledgerConsistencyProof: async (_, args, ctx) =>
      ctx.proofs.consistency(callerOf(ctx), {
        tenantId: opt(args.tenantId),
        first: args.first,
        second: opt(args.second),
      }),
    verifyLedger: async (_, args, ctx) => {
      const r = await ctx.service.verify(callerOf(ctx), { tenantId: opt(args.tenantId) });
      return { valid: r.valid, totalEvents: r.totalEvents, error: r.error };
    },
  },
  Mutation: {
    appendLedgerEvent: async (_, { input }, ctx) => {
      const { event } = await ctx.service.append(callerOf(ctx), {
        tenantId: opt(input.tenantId),
        eventType: input.eventType,
        eventData: input.eventData,
        userId: input.userId,
        correlationId: input.correlationId,
        description: input.description,
        idempotencyKey: input.idempotencyKey,
      });
      return event;
    },
    takeLedgerCheckpoint: async (_, args, ctx) => ctx.proofs.requestCheckpoint(callerOf(ctx), opt(args.tenantId)),
  },
  Subscription: {
    ledgerEventAppended: {
      subscribe: (_, args, ctx) => {
        if (!ctx.subscribeAppends)
          throw new InputError([
            { loc: ['subscription'], msg: 'Subscriptions are served over graphql-ws on /graphql', type: 'value_error' },
          ]);
        const afterSeq = args.afterSeq ?? undefined;
        if (afterSeq !== undefined && afterSeq < 0)
          throw new InputError([
            { loc: ['afterSeq'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' },
          ]);
        return ctx.subscribeAppends(opt(args.eventType), afterSeq);
      },
      resolve: (event: LedgerEvent) => event,
    },
  },
  LedgerEvent: {
    __resolveReference: (ref, ctx) => {
      callerOf(ctx);
      // Batched per request; an unknown (or another tenant's) event is null, anything else, a
      // database outage included, is an error with its code.
      return ctx.loaders.eventById.load(ref.id);
    },
    eventData: (e) => JSON.parse(e.eventDataText) as unknown,
    user: (e) => (e.userId ? { __typename: 'User', username: e.userId } : null),
  },
  User: {
    __resolveReference: (ref) => ref,
    auditTrail: async (user, args, ctx) => {
      callerOf(ctx);
      const first = args.first;
      const before = args.after ? seqPosition.decode(args.after, 'after') : null;
      const rows = await ctx.loaders.auditTrail.load({ username: user.username, first, before });
      const events = rows.slice(0, first);
      const last = events[events.length - 1];
      return connection({
        events,
        hasNextPage: rows.length > first,
        endCursor: last ? seqPosition.encode(last.seq) : null,
        totalCount: async () => null,
      });
    },
  },
} satisfies Resolvers;
