// The config subgraph's resolvers: thin adapters over the same domain services as the REST door.
import { InputError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import { LAYERS, type ChangeNotice, type HashBy, type Layer } from './config.types';
import type { Resolvers } from './resolvers.generated';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function layerOf(value: string): Layer {
  if (!(LAYERS as readonly string[]).includes(value))
    throw InputError.of(['input', 'layer'], `one of ${LAYERS.join(', ')}`);
  return value as Layer;
}

function hashByOf(value: string | null | undefined): HashBy | undefined {
  if (value == null) return undefined;
  if (value !== 'tenant' && value !== 'user') throw InputError.of(['hashBy'], 'tenant or user');
  return value;
}

export const resolvers = {
  JSON: JSONScalar,
  ConfigBundle: { createdAt: (b) => b.createdAt.toISOString() },
  ConfigRollout: { scheduledAt: (r) => iso(r.scheduledAt) },
  ConfigChange: { at: (c) => c.at.toISOString() },
  ConfigChanged: { at: (c) => c.at.toISOString() },
  Query: {
    configEffective: (_, args, ctx) =>
      ctx.config.effective.effective(ctx.caller, {
        tenantId: opt(args.tenantId),
        suite: opt(args.suite),
        module: opt(args.module),
        namespace: opt(args.namespace),
        asOf: opt(args.asOf),
      }),
    configBundle: (_, args, ctx) => orNull(() => ctx.config.bundles.get(ctx.caller, args.id)),
    configRollout: (_, args, ctx) => orNull(() => ctx.config.rollouts.get(ctx.caller, args.id)),
    configBundles: (_, args, ctx) => ctx.config.bundles.recent(ctx.caller, opt(args.limit)),
    configRollouts: (_, args, ctx) => ctx.config.rollouts.recent(ctx.caller, opt(args.limit)),
  },
  Mutation: {
    publishConfigBundle: async (_, { input }, ctx) =>
      (
        await ctx.config.bundles.publish(ctx.caller, {
          layer: layerOf(input.layer),
          scope: opt(input.scope),
          namespace: input.namespace,
          content: input.content as Record<string, unknown>,
          tenantId: opt(input.tenantId),
        })
      ).bundle,
    promoteConfigBundle: (_, args, ctx) =>
      ctx.config.rollouts.promote(ctx.caller, args.bundleId, {
        percentage: opt(args.percentage),
        hashBy: hashByOf(args.hashBy),
        scheduledAt: opt(args.scheduledAt),
      }),
    rollbackConfigBundle: (_, args, ctx) => ctx.config.rollouts.rollback(ctx.caller, args.bundleId),
  },
  Subscription: {
    configChanged: {
      subscribe: (_, args, ctx) => {
        if (!ctx.subscribeChanges)
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        const after = opt(args.afterSeq);
        if (after !== undefined && after < 0)
          throw InputError.of(['afterSeq'], 'Input should be greater than or equal to 0', 'greater_than_equal');
        return ctx.subscribeChanges(after, opt(args.tenantId));
      },
      resolve: (c: ChangeNotice) => c,
    },
  },
} satisfies Resolvers;
