// GraphQL door: each resolver is one call into the same services the REST routes use. The SDL's
// @authenticated/@requiresScopes document the rules for the router; the services enforce them.
import { maybeCacheControlFromInfo } from '@apollo/cache-control-types';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import type { IdentityGraphQLContext } from './graphql.context';
import type { RoleRecord, TenantRecord, TokenPair, UserView } from './identity.types';
import { usernameCursor } from './user.service';

function payload(pair: TokenPair) {
  return { accessToken: pair.accessToken, tokenType: pair.tokenType, expiresIn: pair.expiresIn, refreshToken: pair.refreshToken };
}

function tenantOut(t: TenantRecord) {
  return { id: t.id, name: t.name, isActive: t.isActive, createdAt: t.createdAt.toISOString() };
}

function userOut(u: UserView) {
  return { ...u, createdAt: u.createdAt.toISOString(), lastLogin: u.lastLogin?.toISOString() ?? null };
}

function roleOut(r: RoleRecord) {
  return { name: r.name, description: r.description, scopes: r.scopes, tenantId: r.tenantId };
}

type Args = Record<string, unknown>;

/** @apollo/subgraph calls `__resolveReference(reference, context, info)`; its resolver map types it as a field resolver. */
function referenceResolver<R>(fn: (ref: R, ctx: IdentityGraphQLContext, info: GraphQLResolveInfo) => unknown): GraphQLFieldResolver<unknown, IdentityGraphQLContext> {
  return fn as unknown as GraphQLFieldResolver<unknown, IdentityGraphQLContext>;
}

/**
 * Entity answers may be reused briefly by the router (per caller: scope PRIVATE), which spares
 * identity a lookup for every event a ledger page resolves. Authorization never depends on them:
 * tokens carry roles and scopes.
 */
function entityCacheHint(ctx: IdentityGraphQLContext, info: GraphQLResolveInfo): void {
  const maxAge = ctx.services.config.entityMaxAgeSeconds;
  if (maxAge > 0) maybeCacheControlFromInfo(info)?.setCacheHint({ maxAge, scope: 'PRIVATE' });
}

export const resolvers: GraphQLResolverMap<IdentityGraphQLContext> = {
  Query: {
    me: async (_: unknown, __: Args, ctx: IdentityGraphQLContext) => userOut(await ctx.services.users.me(ctx.caller)),
    tenants: async (_: unknown, __: Args, ctx: IdentityGraphQLContext) => (await ctx.services.tenants.list(ctx.caller)).map(tenantOut),
    users: async (_: unknown, args: { first?: number; after?: string | null; tenantId?: string | null }, ctx: IdentityGraphQLContext) => {
      const page = await ctx.services.users.list(ctx.caller, { first: args.first ?? undefined, after: args.after, tenantId: args.tenantId ?? undefined });
      const nodes = page.users.map(userOut);
      return {
        nodes,
        edges: nodes.map((node) => ({ node, cursor: usernameCursor.encode(node.username) })),
        pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: page.nextCursor },
      };
    },
    roles: async (_: unknown, __: Args, ctx: IdentityGraphQLContext) => (await ctx.services.roles.list(ctx.caller)).map(roleOut),
  },
  Mutation: {
    login: async (_: unknown, args: { username: string; password: string; tenantId?: string | null }, ctx: IdentityGraphQLContext) =>
      payload(await ctx.services.auth.login(ctx.caller, { username: args.username, password: args.password, tenantId: args.tenantId ?? 'default' })),
    refreshToken: async (_: unknown, args: { refreshToken: string }, ctx: IdentityGraphQLContext) => payload(await ctx.services.auth.refresh(ctx.caller, args.refreshToken)),
    createRole: async (_: unknown, args: { name: string; scopes?: string[] | null; description?: string | null; tenantId?: string | null }, ctx: IdentityGraphQLContext) =>
      roleOut(await ctx.services.roles.create(ctx.caller, { name: args.name, scopes: args.scopes ?? undefined, description: args.description, tenantId: args.tenantId ?? undefined })),
    createTenant: async (_: unknown, args: { id: string; name: string }, ctx: IdentityGraphQLContext) => tenantOut(await ctx.services.tenants.create(ctx.caller, args)),
    createUser: async (_: unknown, args: { input: { username: string; password: string; email?: string | null; tenantId?: string | null; roles?: string[] | null; isVerified?: boolean | null } }, ctx: IdentityGraphQLContext) => {
      const i = args.input;
      return userOut(await ctx.services.users.create(ctx.caller, { username: i.username, password: i.password, email: i.email, tenantId: i.tenantId ?? undefined, roles: i.roles ?? undefined, isVerified: i.isVerified ?? undefined }));
    },
    assignRole: async (_: unknown, args: { userId: string; roleName: string }, ctx: IdentityGraphQLContext) => userOut(await ctx.services.users.assignRole(ctx.caller, args)),
  },
  User: {
    __resolveReference: referenceResolver(async (ref: { id?: string; username?: string }, ctx, info) => {
      entityCacheHint(ctx, info);
      const user = ref.id !== undefined ? await ctx.loaders.userById.load(ref.id) : ref.username !== undefined ? await ctx.loaders.userByUsername.load(ref.username) : null;
      return user ? userOut(user) : null;
    }),
  },
  Tenant: {
    __resolveReference: referenceResolver(async (ref: { id: string }, ctx, info) => {
      entityCacheHint(ctx, info);
      const tenant = await ctx.loaders.tenantById.load(ref.id);
      return tenant ? tenantOut(tenant) : null;
    }),
  },
};
