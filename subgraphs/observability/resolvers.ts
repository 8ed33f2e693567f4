// The observability subgraph's resolvers: one call into the trace, metric or alert service each. JSON
// matchers arrive unchecked (the JSON scalar) and are checked by the alert service's input rules.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt } from '../../platform/graphql/resolver-args';
import type { AlertKind, AlertOp, AlertScope, Matchers } from './alert.types';
import type { Resolvers } from './resolvers.generated';

const matchers = (v: unknown) => (v === null || v === undefined ? undefined : (v as Matchers));

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
    metricSeries: (_parent, args, { caller, metrics }) =>
      metrics.series(caller, {
        metric: args.metric,
        matchers: matchers(args.matchers),
        from: opt(args.from),
        to: opt(args.to),
        stepSeconds: opt(args.stepSeconds),
        rate: opt(args.rate),
        scope: opt(args.scope) as 'tenant' | 'platform' | undefined,
        tenantId: opt(args.tenantId),
      }),
    observabilityAlerts: (_parent, args, { caller, alerts }) =>
      alerts.alerts(caller, opt(args.tenantId), args.firing ?? false),
    observabilitySilences: (_parent, args, { caller, alerts }) =>
      alerts.silences(caller, opt(args.tenantId), args.all ?? false),
  },
  Mutation: {
    createAlertRule: (_parent, { input, tenantId }, { caller, alerts }) =>
      alerts.createRule(
        caller,
        {
          name: input.name,
          scope: opt(input.scope) as AlertScope | undefined,
          kind: input.kind as AlertKind,
          metric: input.metric,
          matchers: matchers(input.matchers),
          denominatorMetric: opt(input.denominatorMetric),
          denominatorMatchers: matchers(input.denominatorMatchers),
          op: input.op as AlertOp,
          threshold: input.threshold,
          windowSeconds: opt(input.windowSeconds),
          forSeconds: opt(input.forSeconds),
          severity: opt(input.severity),
          summary: opt(input.summary),
        },
        opt(tenantId),
      ),
    deleteAlertRule: async (_parent, { id, tenantId }, { caller, alerts }) => {
      await alerts.deleteRule(caller, id, opt(tenantId));
      return true;
    },
    createSilence: (_parent, { input, tenantId }, { caller, alerts }) =>
      alerts.createSilence(
        caller,
        {
          matchers: matchers(input.matchers) ?? {},
          startsAt: opt(input.startsAt),
          endsAt: input.endsAt,
          comment: input.comment,
        },
        opt(tenantId),
      ),
    expireSilence: (_parent, { id, tenantId }, { caller, alerts }) => alerts.expireSilence(caller, id, opt(tenantId)),
  },
  Alert: {
    state: (a) => a.state?.state ?? 'inactive',
    value: (a) => a.state?.value ?? null,
    activeSince: (a) => a.state?.activeSince ?? null,
    firedAt: (a) => a.state?.firedAt ?? null,
    resolvedAt: (a) => a.state?.resolvedAt ?? null,
    notified: (a) => a.state?.notified ?? false,
    silencedBy: (a) => a.state?.silencedBy ?? null,
    evaluatedAt: (a) => a.state?.evaluatedAt ?? null,
  },
} satisfies Resolvers;
