// The observability subgraph's resolvers: one call into the trace service each.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    observedTrace: (_parent, args, { caller, traces }) => traces.trace(caller, args.traceId, opt(args.tenantId)),
    observedSpans: (_parent, args, { caller, traces }) =>
      traces.search(caller, {
        service: opt(args.service),
        operation: opt(args.operation),
        minDurationMs: opt(args.minDurationMs),
        error: opt(args.error),
        from: opt(args.from),
        to: opt(args.to),
        limit: opt(args.limit),
        tenantId: opt(args.tenantId),
      }),
  },
} satisfies Resolvers;
