// The one REST caller extractor: the Caller a route hands its service, from what the
// authentication hook verified, the gateway's X-Tenant-ID and the request's correlation id.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller';

export function callerOf(request: FastifyRequest): Caller {
  const header = request.headers['x-tenant-id'];
  return {
    auth: request.auth,
    headerTenant: typeof header === 'string' && header !== '' ? header : undefined,
    correlationId: request.id,
  };
}
