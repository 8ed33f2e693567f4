// What every service app records per request (platform/http/service-app.ts registers it): the
// request metrics of metrics.ts, GET /metrics in Prometheus text, and the service's name and the
// tenant on the request's server span (server-span.ts), so a trace search by service or tenant finds it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tracingStarted } from './trace-context';
import { registerServerSpan } from './server-span';
import { metricsText, serviceMetrics } from './metrics';

/** The tenant a request acts in, as far as the platform knows at response time. */
function tenantOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-tenant-id'];
  return request.auth?.tenantId ?? (typeof header === 'string' ? header : undefined);
}

function operationOf(request: FastifyRequest): string | undefined {
  const body = request.body as { operationName?: unknown } | undefined;
  return body && typeof body.operationName === 'string' ? body.operationName : undefined;
}

export function registerRequestTelemetry(app: FastifyInstance, service: string): void {
  const m = serviceMetrics(service);
  // Callback hooks, not async ones: these run on every request of every service, and an async
  // hook costs a promise and a microtask turn each (issue 35's per-request overhead).
  // The server span's hooks only where spans are recorded: three hooks fewer on every request otherwise.
  if (tracingStarted()) registerServerSpan(app, service, tenantOf);
  app.addHook('onResponse', (request, reply, done) => {
    record(request, reply);
    done();
  });
  const record = (request: FastifyRequest, reply: FastifyReply) => {
    // The route template ('/api/v1/ledger/events/:id'), never the path itself.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    const status = String(reply.statusCode);
    m.requests.inc({ method: request.method, route, status });
    if (reply.statusCode >= 500) m.errors.inc({ method: request.method, route, status });
    if (reply.statusCode === 429) m.rateLimited.inc({ route });
    m.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    const tenant = tenantOf(request);
    if (tenant) m.tenantRequests.inc({ tenant: m.tenants.label(tenant) });
    if (route.endsWith('/graphql') && request.method === 'POST') {
      m.operations.inc({
        operation: m.operationNames.label(operationOf(request) ?? 'anonymous'),
        outcome: reply.statusCode < 400 ? 'ok' : 'error',
      });
    }
  };
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    const { contentType, body } = await metricsText(service);
    return reply.type(contentType).send(body);
  });
}
