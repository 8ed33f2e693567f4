// The platform-group part of the events subgraph's resolvers (spread into resolvers.ts): the
// operators' doors on the platform's consumer groups, one call into PlatformGroupsService per
// field, the same calls as the REST door (rest-compat/events/platform-groups.routes.ts).
import { opt, orNull } from '../../platform/graphql/resolver-args';
import { callerOf, platformGroupsOf } from './graphql.context';
import type { MutationResolvers, PlatformGroupResolvers, QueryResolvers } from './resolvers.generated';

export const platformGroupQuery = {
  platformGroups: (_, __, ctx) => platformGroupsOf(ctx).list(callerOf(ctx)),
  platformGroup: (_, args, ctx) => orNull(platformGroupsOf(ctx).group(callerOf(ctx), args.name)),
} satisfies QueryResolvers;

export const platformGroupMutation = {
  redrivePlatformGroup: (_, args, ctx) => platformGroupsOf(ctx).redrive(callerOf(ctx), args.name, opt(args.tenantId)),
} satisfies MutationResolvers;

export const platformGroupTypes = {
  PlatformGroup: {
    deadLetters: (g, args, ctx) => platformGroupsOf(ctx).deadLetters(callerOf(ctx), g.name, args.limit ?? 100),
  } satisfies PlatformGroupResolvers,
};
