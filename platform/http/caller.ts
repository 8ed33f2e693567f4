// The one REST caller extractor: the Caller a route hands its service, from what the
// authentication hook verified, the gateway's X-Tenant-ID and the request's correlation id.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller';

export function callerOf(request: FastifyRequest): Caller {
  // The raw headers: Fastify's `request.headers` accessor is slow at a site every service shares (issue 35).
  const header = request.raw.headers['x-tenant-id'];
  return {
    auth: request.auth,
    headerTenant: typeof header === 'string' && header !== '' ? header : undefined,
    correlationId: request.id,
  };
}
