// GraphQL door: each resolver is one call into the same services the REST routes use. The SDL's
// @authenticated/@requiresScopes document the rules for the router; the services enforce them.
import { maybeCacheControlFromInfo } from '@apollo/cache-control-types';
import type { GraphQLResolveInfo } from 'graphql';
import type { IdentityGraphQLContext } from './graphql.context';
import type { RoleRecord, TenantRecord, TokenPair, UserView } from './identity.types';
import { usernameCursor } from './user.service';
import type { FactorView } from './mfa.service';
import type { TenantMfaPolicy } from './mfa-policy.service';
import type { SessionView } from './session.service';
import type { Resolvers } from './resolvers.generated';
import { authenticationCredential, registrationCredential } from './webauthn.credential';
import { JSONScalar } from '../../platform/graphql/json-scalar';

function payload(pair: TokenPair) {
  return {
    accessToken: pair.accessToken,
    tokenType: pair.tokenType,
    expiresIn: pair.expiresIn,
    refreshToken: pair.refreshToken,
  };
}

function factorOut(f: FactorView) {
  return { ...f, createdAt: f.createdAt.toISOString(), lastUsedAt: f.lastUsedAt?.toISOString() ?? null };
}

function policyOut(p: TenantMfaPolicy) {
  return { ...p, updatedAt: p.updatedAt?.toISOString() ?? null };
}

function sessionOut(s: SessionView) {
  return {
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastUsedAt: s.lastUsedAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    amr: s.amr,
    current: s.current,
  };
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

/**
 * Entity answers may be reused briefly by the router (per caller: scope PRIVATE), which spares
 * identity a lookup for every event a ledger page resolves. Authorization never depends on them:
 * tokens carry roles and scopes.
 */
function entityCacheHint(ctx: IdentityGraphQLContext, info: GraphQLResolveInfo): void {
  const maxAge = ctx.services.config.entityMaxAgeSeconds;
  if (maxAge > 0) maybeCacheControlFromInfo(info)?.setCacheHint({ maxAge, scope: 'PRIVATE' });
}

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    me: async (_, __, ctx) => userOut(await ctx.services.users.me(ctx.caller)),
    tenants: async (_, __, ctx) => (await ctx.services.tenants.list(ctx.caller)).map(tenantOut),
    users: async (_, args, ctx) => {
      const page = await ctx.services.users.list(ctx.caller, {
        first: args.first ?? undefined,
        after: args.after,
        tenantId: args.tenantId ?? undefined,
      });
      const nodes = page.users.map(userOut);
      return {
        nodes,
        edges: nodes.map((node) => ({ node, cursor: usernameCursor.encode(node.username) })),
        pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: page.nextCursor },
      };
    },
    roles: async (_, __, ctx) => (await ctx.services.roles.list(ctx.caller)).map(roleOut),
    mfaFactors: async (_, __, ctx) => {
      const { factors, recoveryCodesLeft } = await ctx.services.mfa.listFactors(ctx.caller);
      return { factors: factors.map(factorOut), recoveryCodesLeft };
    },
    mfaPolicy: async (_, args, ctx) =>
      policyOut(await ctx.services.mfaPolicy.get(ctx.caller, args.tenantId ?? undefined)),
    sessions: async (_, args, ctx) =>
      (await ctx.services.sessions.list(ctx.caller, args.userId ?? undefined)).map(sessionOut),
  },
  Mutation: {
    login: async (_, args, ctx) =>
      payload(
        await ctx.services.auth.login(ctx.caller, {
          username: args.username,
          password: args.password,
          tenantId: args.tenantId ?? 'default',
        }),
      ),
    refreshToken: async (_, args, ctx) => payload(await ctx.services.auth.refresh(ctx.caller, args.refreshToken)),
    verifyMfa: async (_, args, ctx) =>
      payload(
        await ctx.services.mfaSignIn.verify(ctx.caller, {
          mfaToken: args.mfaToken,
          code: args.code,
          method: args.method ?? undefined,
        }),
      ),
    enrolTotp: async (_, args, ctx) => {
      const { mfa, mfaSignIn } = ctx.services;
      const started =
        args.mfaToken != null
          ? await mfaSignIn.enrolStart(ctx.caller, { mfaToken: args.mfaToken, label: args.label })
          : await mfa.startTotp(await mfa.self(ctx.caller), args.label);
      return { factorId: started.factorId, secret: started.secret, otpauthUri: started.uri };
    },
    confirmTotp: async (_, args, ctx) => {
      if (args.mfaToken != null) {
        const done = await ctx.services.mfaSignIn.enrolConfirm(ctx.caller, {
          mfaToken: args.mfaToken,
          factorId: args.factorId,
          code: args.code,
        });
        return { factorId: done.factorId, recoveryCodes: done.recoveryCodes, tokens: payload(done.pair) };
      }
      const confirmed = await ctx.services.mfa.confirmTotpForCaller(ctx.caller, args);
      return { factorId: confirmed.factor.id, recoveryCodes: confirmed.recoveryCodes, tokens: null };
    },
    webauthnAuthenticationOptions: async (_, args, ctx) =>
      ctx.services.webauthnSignIn.authenticationOptions({ mfaToken: args.mfaToken }),
    verifyWebauthn: async (_, args, ctx) =>
      payload(
        await ctx.services.webauthnSignIn.verify(ctx.caller, {
          mfaToken: args.mfaToken,
          credential: authenticationCredential(args.credential),
        }),
      ),
    webauthnRegistrationOptions: async (_, args, ctx) =>
      args.mfaToken != null
        ? ctx.services.webauthnSignIn.registrationOptions({ mfaToken: args.mfaToken })
        : ctx.services.webauthn.registrationOptionsForCaller(ctx.caller),
    registerWebauthn: async (_, args, ctx) => {
      const credential = registrationCredential(args.credential);
      if (args.mfaToken != null) {
        const done = await ctx.services.webauthnSignIn.enrol(ctx.caller, {
          mfaToken: args.mfaToken,
          credential,
          label: args.label,
        });
        return { factorId: done.factorId, recoveryCodes: done.recoveryCodes, tokens: payload(done.pair) };
      }
      const registered = await ctx.services.webauthn.registerForCaller(ctx.caller, { credential, label: args.label });
      return { factorId: registered.factor.id, recoveryCodes: registered.recoveryCodes, tokens: null };
    },
    renameMfaFactor: async (_, args, ctx) => (
      await ctx.services.webauthn.renameFactor(ctx.caller, args.id, args.label ?? null),
      true
    ),
    removeMfaFactor: async (_, args, ctx) => (await ctx.services.mfa.removeFactor(ctx.caller, args.id), true),
    regenerateRecoveryCodes: async (_, __, ctx) => ctx.services.mfa.regenerateRecoveryCodes(ctx.caller),
    resetUserMfa: async (_, args, ctx) => (await ctx.services.mfa.resetUser(ctx.caller, args.userId)).factorsRemoved,
    setMfaPolicy: async (_, args, ctx) =>
      policyOut(
        await ctx.services.mfaPolicy.set(ctx.caller, {
          requiredRoles: args.requiredRoles,
          tenantId: args.tenantId ?? undefined,
        }),
      ),
    revokeSession: async (_, args, ctx) => (
      await ctx.services.sessions.revoke(ctx.caller, args.id, args.userId ?? undefined),
      true
    ),
    revokeAllSessions: async (_, args, ctx) => ctx.services.sessions.revokeAll(ctx.caller, args.userId ?? undefined),
    createRole: async (_, args, ctx) =>
      roleOut(
        await ctx.services.roles.create(ctx.caller, {
          name: args.name,
          scopes: args.scopes ?? undefined,
          description: args.description,
          tenantId: args.tenantId ?? undefined,
        }),
      ),
    createTenant: async (_, args, ctx) => tenantOut(await ctx.services.tenants.create(ctx.caller, args)),
    createUser: async (_, args, ctx) => {
      const i = args.input;
      return userOut(
        await ctx.services.users.create(ctx.caller, {
          username: i.username,
          password: i.password,
          email: i.email,
          tenantId: i.tenantId ?? undefined,
          roles: i.roles ?? undefined,
          isVerified: i.isVerified ?? undefined,
        }),
      );
    },
    assignRole: async (_, args, ctx) => userOut(await ctx.services.users.assignRole(ctx.caller, args)),
  },
  User: {
    __resolveReference: async (ref, ctx, info) => {
      entityCacheHint(ctx, info);
      const user =
        'id' in ref ? await ctx.loaders.userById.load(ref.id) : await ctx.loaders.userByUsername.load(ref.username);
      return user ? userOut(user) : null;
    },
  },
  Tenant: {
    __resolveReference: async (ref, ctx, info) => {
      entityCacheHint(ctx, info);
      const tenant = await ctx.loaders.tenantById.load(ref.id);
      return tenant ? tenantOut(tenant) : null;
    },
  },
} satisfies Resolvers;
