// The REST gateway (spec 01, gateway endpoints) on the gateway's Fastify app: every /api/v1 route
// rate-limited per client address, authenticated (bearer token), scope-checked, tenant-checked
// and rate-limited per tenant, then
// proxied as a stream to its backend under that backend's circuit breaker.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { actsForAnyTenant, assertScope } from '../platform/auth/auth-context';
import { authenticate, requireAdmin, requireAuth, type TokenAuthenticator } from '../platform/http/auth-hooks';
import { NotFoundError } from '../platform/errors/domain-errors';
import type { GatewayConfig } from '../router/gateway.config';
import { limitClientIp } from '../router/http/client-ip.limit';
import { BACKENDS, type BackendName } from '../router/gateway.config';
import type { BackendRegistry } from './gateway/backends/backend.registry';
import { discoverServices } from './gateway/discovery/service-discovery';
import { PROXY_ROUTES, requiredScope, type ProxyRoute } from './gateway/gateway.routes';
import { proxyRequest } from './gateway/proxy/stream.proxy';
import { applyRateLimit } from './gateway/rate-limit/rate-limit.hook';
import type { RateLimiter } from './gateway/rate-limit/rate-limiter';
import { effectiveTenant, namedTenant } from './gateway/tenant.guard';

export interface RestGatewayDeps {
  config: GatewayConfig;
  verifier: TokenAuthenticator;
  limiter: RateLimiter;
  /** Per client address, before authentication (router/http/client-ip.limit.ts); absent = off. */
  ipLimiter?: RateLimiter;
  backends: BackendRegistry;
  bodyLimitBytes: number;
}

export async function registerRestGateway(app: FastifyInstance, deps: RestGatewayDeps): Promise<void> {
  await app.register(async (api) => {
    // Proxied bodies pass through untouched: JSON is read (bounded by the body limit) only so
    // its tenant_id can be checked; every other type is handed on as the raw stream.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: deps.bodyLimitBytes }, (_req, body, done) => done(null, body));
    api.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

    // Before authentication: a flood of invalid tokens is refused without verifying each one.
    api.addHook('onRequest', async (request, reply) => {
      if (!(await limitClientIp(deps.ipLimiter, request, reply))) return reply;
      return undefined;
    });
    api.addHook('onRequest', authenticate(deps.verifier));
    api.addHook('onRequest', async (request, reply) => {
      if (!(await applyRateLimit(deps.limiter, request, reply))) return reply;
      return undefined;
    });

    api.get('/api/v1/services', { schema: { summary: 'Service discovery: URL, version, live health and breaker state of each backend', security: [{ bearerAuth: [] }] } }, async (request) => {
      assertScope(requireAuth(request), 'read');
      return { services: await discoverServices(deps.backends) };
    });

    api.post<{ Params: { name: string } }>('/api/v1/services/:name/breaker/reset', {
      preHandler: requireAdmin,
      schema: { summary: 'Close a backend circuit breaker (admin)', security: [{ bearerAuth: [] }] },
    }, async (request) => {
      assertScope(requireAuth(request), 'admin');
      const name = request.params.name as BackendName;
      if (!(BACKENDS as readonly string[]).includes(name)) throw new NotFoundError(`Unknown service '${request.params.name}'`);
      deps.backends.get(name).reset();
      return { name, breaker: deps.backends.get(name).state() };
    });

    for (const route of PROXY_ROUTES) {
      api.route({
        method: route.method,
        url: route.url,
        schema: { summary: route.summary, security: [{ bearerAuth: [] }] },
        handler: (request, reply) => handleProxy(route, deps, request, reply),
      });
    }
  });
}

async function handleProxy(route: ProxyRoute, deps: RestGatewayDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const auth = requireAuth(request);
  assertScope(auth, requiredScope(route, request.method));
  const raw = Buffer.isBuffer(request.body) ? request.body : undefined;
  let json: unknown;
  if (raw && raw.length > 0) {
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      json = undefined; // malformed JSON goes on as-is; the backend answers its own 422
    }
  }
  const sources = { header: request.headers['x-tenant-id'], query: request.query, body: json };
  const tenantId = effectiveTenant(auth, sources);
  // A tenant's own calls are pinned to its tenant where the backend reads one; a platform admin
  // who names no tenant keeps the backend's platform-wide meaning (e.g. verify every chain).
  const inject = route.injectTenant && (namedTenant(auth, sources) !== undefined || !actsForAnyTenant(auth));

  const queryIndex = request.url.indexOf('?');
  const params = new URLSearchParams(queryIndex >= 0 ? request.url.slice(queryIndex + 1) : '');
  if (inject && route.injectTenant === 'query') params.set('tenant_id', tenantId);
  let body = raw;
  if (inject && route.injectTenant === 'body' && json && typeof json === 'object' && !Array.isArray(json) && !('tenant_id' in json)) {
    body = Buffer.from(JSON.stringify({ ...(json as object), tenant_id: tenantId }));
  }
  const search = params.size > 0 ? `?${params.toString()}` : '';
  const path = route.wildcard ? joinPath(route.upstreamPath, (request.params as Record<string, string>)['*'] ?? '') : route.upstreamPath;
  if (!raw && request.body && !(request.body instanceof Readable)) request.log.warn('unexpected parsed body on proxied route');
  return proxyRequest(request, reply, {
    backend: deps.backends.get(route.backend),
    path,
    search,
    tenantId,
    body,
    timeoutMs: deps.config.upstreamTimeoutMs,
    resetTimeoutMs: deps.config.breaker.resetTimeoutMs,
  });
}

function joinPath(prefix: string, remainder: string): string {
  const clean = remainder.split('/').map(encodeURIComponent).join('/');
  return `${prefix.replace(/\/$/, '')}/${clean}`;
}
