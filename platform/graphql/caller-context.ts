// The one GraphQL caller builder, for every subgraph's per-request context (HTTP) and for
// graphql-ws connections: a verified token or none; a presented but bad token fails the whole
// operation with UNAUTHENTICATED, since silently treating it as anonymous would hide an expired
// session from the client.
import { GraphQLError } from 'graphql';
import { bearerToken } from '../auth/jwt';
import type { Caller } from '../auth/caller';
import { CREDENTIALS_MESSAGE } from '../errors/domain-errors';
import type { TokenAuthenticator } from '../http/auth-hooks';

export interface CallerSource {
  authorization?: string;
  tenantHeader?: string;
  correlationId: string;
}

export function unauthenticated(): GraphQLError {
  return new GraphQLError(CREDENTIALS_MESSAGE, {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: new Map([['www-authenticate', 'Bearer']]) } },
  });
}

export async function graphqlCaller(source: CallerSource, tokens: TokenAuthenticator): Promise<Caller> {
  const token = bearerToken(source.authorization);
  if (source.authorization && !token) throw unauthenticated();
  let auth: Caller['auth'];
  if (token) {
    try {
      auth = tokens.cached?.(token) ?? (await tokens.authenticate(token));
    } catch {
      throw unauthenticated();
    }
  }
  return { auth, headerTenant: source.tenantHeader || undefined, correlationId: source.correlationId };
}

/** graphqlCaller for a Fastify request. */
export function graphqlCallerOf(
  request: import('fastify').FastifyRequest,
  tokens: TokenAuthenticator,
): Promise<Caller> {
  const tenantHeader = request.headers['x-tenant-id'];
  return graphqlCaller(
    {
      authorization: request.headers.authorization,
      tenantHeader: typeof tenantHeader === 'string' ? tenantHeader : undefined,
      correlationId: request.id,
    },
    tokens,
  );
}
