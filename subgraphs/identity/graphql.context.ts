// The per-request GraphQL context: the verified caller (or anonymous), the correlation id, and
// DataLoaders that batch entity references into one scoped store call per type.
import DataLoader from 'dataloader';
import type { FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { bearerToken } from '../../platform/auth/jwt';
import type { IdentityServices } from './identity.module';
import type { CallContext, TenantRecord, UserView } from './identity.types';

export interface IdentityGraphQLContext extends CallContext {
  services: IdentityServices;
  loaders: {
    userById: DataLoader<string, UserView | null>;
    userByUsername: DataLoader<string, UserView | null>;
    tenantById: DataLoader<string, TenantRecord | null>;
  };
}

function unauthenticated(): GraphQLError {
  return new GraphQLError('Could not validate credentials', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: new Map([['www-authenticate', 'Bearer']]) } },
  });
}

export function contextBuilder(services: IdentityServices): (request: FastifyRequest) => Promise<IdentityGraphQLContext> {
  return async (request) => {
    const header = request.headers.authorization;
    const token = bearerToken(header);
    let auth: CallContext['auth'];
    if (header !== undefined) {
      // A presented but bad token fails the whole operation: silently treating it as anonymous
      // would hide an expired session from the client.
      if (!token) throw unauthenticated();
      auth = await services.verifier.authenticate(token).catch(() => {
        throw unauthenticated();
      });
    }
    const ctx: CallContext = { auth, correlationId: request.id };
    const byKey = <K extends string, V>(rows: V[], key: (v: V) => string, keys: readonly K[]) => {
      const map = new Map(rows.map((r) => [key(r), r]));
      return keys.map((k) => map.get(k) ?? null);
    };
    return {
      ...ctx,
      services,
      loaders: {
        userById: new DataLoader(async (ids) => byKey(await services.users.findByIds(ctx, ids), (u) => u.id, ids)),
        userByUsername: new DataLoader(async (names) => byKey(await services.users.findByUsernames(ctx, names), (u) => u.username, names)),
        tenantById: new DataLoader(async (ids) => byKey(await services.tenants.findByIds(ctx, ids), (t) => t.id, ids)),
      },
    };
  };
}
