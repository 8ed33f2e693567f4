// What every service app records per request (platform/http/service-app.ts registers it): the
// request metrics of metrics.ts (counted in its tally, read at scrape time), GET /metrics in
// Prometheus text, and the service's name and the tenant on the request's server span
// (server-span.ts), so a trace search by service or tenant finds it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tracingStarted } from './trace-context';
import { registerServerSpan } from './server-span';
import { routeTemplate } from '../http/route-template';
import { metricsText, serviceMetrics } from './metrics';

/** The tenant a request acts in, as far as the platform knows at response time. */
function tenantOf(request: FastifyRequest): string | undefined {
  // The header only for an anonymous caller: a header lookup that misses costs more than the read.
  const auth = request.auth;
  if (auth) return auth.tenantId;
  const header = request.raw.headers['x-tenant-id'];
  return typeof header === 'string' ? header : undefined;
}

function operationOf(request: FastifyRequest): string | undefined {
  const body = request.body as { operationName?: unknown } | undefined;
  return body && typeof body.operationName === 'string' ? body.operationName : undefined;
}

/**
 * Registers GET /metrics (and the server span's hooks where spans are recorded); answers the
 * function that records one answered request (and ends its server span), which the kernel calls
 * from its one onResponse hook (platform/http/service-app.ts) beside the log line: one hook per
 * request instead of three.
 */
export function registerRequestTelemetry(
  app: FastifyInstance,
  service: string,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const m = serviceMetrics(service);
  // The server span's hooks only where spans are recorded: two hooks fewer on every request otherwise.
  const endServerSpan = tracingStarted() ? registerServerSpan(app, service, tenantOf) : undefined;
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    const { contentType, body } = await metricsText(service);
    return reply.type(contentType).send(body);
  });
  return (request, reply) => {
    endServerSpan?.(request, reply);
    // The route template ('/api/v1/ledger/events/:id'), never the path itself.
    const route = routeTemplate(request) ?? 'unmatched';
    if (route === '/metrics') return;
    const { statusCode } = reply;
    m.tally.request(request.method, route, statusCode, reply.elapsedTime / 1000);
    const tenant = tenantOf(request);
    if (tenant) m.tally.tenant(m.tenants.label(tenant));
    if (request.method === 'POST' && route.endsWith('/graphql')) {
      m.tally.operation(m.operationNames.label(operationOf(request) ?? 'anonymous'), statusCode < 400 ? 'ok' : 'error');
    }
  };
}
