// The ledger subgraph's resolvers: thin adapters over ledger.service (same functions as REST).
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { callerOf, type LedgerGraphQLContext } from './graphql.context';
import { seqPosition, type EventConnection } from './ledger.service';
import type { EventFilter, LedgerEvent } from './ledger.types';

interface FilterArg {
  tenantId?: string | null;
  eventType?: string | null;
  userId?: string | null;
  correlationId?: string | null;
  startTime?: string | null;
  endTime?: string | null;
}

const opt = (v: string | null | undefined) => v ?? undefined;

function filterOf(f: FilterArg | null | undefined): EventFilter {
  return { eventType: opt(f?.eventType), userId: opt(f?.userId), correlationId: opt(f?.correlationId), startTime: opt(f?.startTime), endTime: opt(f?.endTime) };
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

type Ctx = LedgerGraphQLContext;

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    ledgerEvents: async (_: unknown, args: { filter?: FilterArg | null; first?: number | null; after?: string | null }, ctx: Ctx) =>
      connection(await ctx.service.eventsConnection(callerOf(ctx), {
        tenantId: opt(args.filter?.tenantId), filter: filterOf(args.filter), first: args.first ?? undefined, after: opt(args.after),
      })),
    ledgerPosition: async (_: unknown, args: { tenantId?: string | null }, ctx: Ctx) =>
      ctx.service.position(callerOf(ctx), opt(args.tenantId)),
    ledgerCheckpoint: async (_: unknown, args: { tenantId?: string | null }, ctx: Ctx) => ctx.proofs.latestCheckpoint(callerOf(ctx), opt(args.tenantId)),
    ledgerInclusionProof: async (_: unknown, args: { tenantId?: string | null; entryId?: string | null; seq?: number | null; treeSize?: number | null }, ctx: Ctx) =>
      ctx.proofs.inclusion(callerOf(ctx), { tenantId: opt(args.tenantId), entryId: opt(args.entryId), seq: args.seq ?? undefined, treeSize: args.treeSize ?? undefined }),
    ledgerConsistencyProof: async (_: unknown, args: { tenantId?: string | null; first: number; second?: number | null }, ctx: Ctx) =>
      ctx.proofs.consistency(callerOf(ctx), { tenantId: opt(args.tenantId), first: args.first, second: args.second ?? undefined }),
    verifyLedger: async (_: unknown, args: { tenantId?: string | null }, ctx: Ctx) => {
      const r = await ctx.service.verify(callerOf(ctx), { tenantId: opt(args.tenantId) });
      return { valid: r.valid, totalEvents: r.totalEvents, error: r.error };
    },
  },
  Mutation: {
    appendLedgerEvent: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: Ctx) => {
      const { event } = await ctx.service.append(callerOf(ctx), {
        tenantId: (input.tenantId as string | null) ?? undefined,
        eventType: input.eventType as string,
        eventData: input.eventData as Record<string, unknown>,
        userId: input.userId as string | null,
        correlationId: input.correlationId as string | null,
        description: input.description as string | null,
        idempotencyKey: input.idempotencyKey as string | null,
      });
      return event;
    },
    takeLedgerCheckpoint: async (_: unknown, args: { tenantId?: string | null }, ctx: Ctx) => ctx.proofs.requestCheckpoint(callerOf(ctx), opt(args.tenantId)),
  },
  Subscription: {
    ledgerEventAppended: {
      subscribe: (_: unknown, args: { eventType?: string | null; afterSeq?: number | null }, ctx: Ctx) => {
        if (!ctx.subscribeAppends) throw new InputError([{ loc: ['subscription'], msg: 'Subscriptions are served over graphql-ws on /graphql', type: 'value_error' }]);
        const afterSeq = args.afterSeq ?? undefined;
        if (afterSeq !== undefined && afterSeq < 0) throw new InputError([{ loc: ['afterSeq'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' }]);
        return ctx.subscribeAppends(opt(args.eventType), afterSeq);
      },
      resolve: (event: LedgerEvent) => event,
    },
  },
  LedgerEvent: {
    __resolveReference: (ref: { id: string }, ctx: Ctx) => {
      callerOf(ctx);
      // Batched per request; an unknown (or another tenant's) event is null, anything else, a
      // database outage included, is an error with its code.
      return ctx.loaders.eventById.load(ref.id);
    },
    eventData: (e: LedgerEvent) => JSON.parse(e.eventDataText) as unknown,
    user: (e: LedgerEvent) => (e.userId ? { __typename: 'User', username: e.userId } : null),
  },
  User: {
    __resolveReference: (ref: { username: string }) => ref,
    auditTrail: async (user: { username: string }, args: { first?: number | null; after?: string | null }, ctx: Ctx) => {
      callerOf(ctx);
      const first = args.first ?? 20;
      const before = args.after ? seqPosition.decode(args.after, 'after') : null;
      const rows = await ctx.loaders.auditTrail.load({ username: user.username, first, before });
      const events = rows.slice(0, first);
      const last = events[events.length - 1];
      return connection({ events, hasNextPage: rows.length > first, endCursor: last ? seqPosition.encode(last.seq) : null, totalCount: async () => null });
    },
  },
};
