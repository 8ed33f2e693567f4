// The template of the route a request matched ('/api/config/:tenant_id/effective'), undefined for
// a request no route matched. Fastify's public `request.routeOptions` builds a 13-field object (and
// asks the router for its version constraint) on every read, ~0.2 µs a request on the hot path of
// every service (issues 30 and 35), for the one field telemetry reads per request. The route's
// context already holds it, under a symbol Fastify exports only from its lib folder (the same
// since v4); should an upgrade move it, the public getter answers instead
// (test/unit/platform/route-template.test.ts pins that both agree).
import type { FastifyRequest } from 'fastify';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { kRouteContext } = require('fastify/lib/symbols.js') as { kRouteContext?: symbol };

interface RouteContext {
  config?: { url?: string };
}

export function routeTemplate(request: FastifyRequest): string | undefined {
  const context = kRouteContext
    ? (request as unknown as Record<symbol, RouteContext | undefined>)[kRouteContext]
    : undefined;
  return context ? context.config?.url : request.routeOptions.url;
}
