// The REST gateway (spec 01, gateway endpoints) on the gateway's Fastify app: every /api/v1 route
// rate-limited per client address, authenticated (bearer token), scope-checked, tenant-checked
// and rate-limited per tenant, then
// proxied as a stream to its backend under that backend's circuit breaker.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { assertAdmin, assertScope } from '../platform/auth/auth-context';
import { actsForAnyTenant, effectiveTenant, namesTenant } from '../platform/auth/tenant.rule';
import { authenticationHook, requireAuth, type TokenAuthenticator } from '../platform/http/auth-hooks';
import { NotFoundError } from '../platform/errors/domain-errors';
import type { BackendRegistry } from './edge/backends/backend.registry';
import { discoverServices } from './edge/discovery/service-discovery';
import { requiredScope, type ProxyRoute } from './edge/proxy-routes';
import { proxyRequest } from './edge/proxy/stream.proxy';
import { applyRateLimit } from './edge/rate-limit/rate-limit.hook';
import type { RateLimiter } from './edge/rate-limit/rate-limiter';
import type { GatewayConfig } from './gateway.config';
import { parseJsonStrict } from '../platform/http/json-strict';
import { limitClientIp } from './http/client-ip.limit';

export interface RestGatewayDeps {
  config: GatewayConfig;
  verifier: TokenAuthenticator;
  limiter: RateLimiter;
  /** Per client address, before authentication (router/http/client-ip.limit.ts); absent = off. */
  ipLimiter?: RateLimiter;
  backends: BackendRegistry;
  routes: ProxyRoute[];
  bodyLimitBytes: number;
}

export async function registerRestGateway(app: FastifyInstance, deps: RestGatewayDeps): Promise<void> {
  await app.register(async (api) => {
    // Proxied bodies pass through untouched: JSON is read (bounded by the body limit) only so
    // its tenant_id can be checked; every other type is handed on as the raw stream.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: deps.bodyLimitBytes },
      (_req, body, done) => done(null, body),
    );
    api.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

    // Before authentication: a flood of invalid tokens is refused without verifying each one.
    api.addHook('onRequest', async (request, reply) => {
      if (!(await limitClientIp(deps.ipLimiter, request, reply))) return reply;
      return undefined;
    });
    api.addHook('onRequest', authenticationHook(deps.verifier, 'required'));
    api.addHook('onRequest', async (request, reply) => {
      if (!(await applyRateLimit(deps.limiter, request, reply))) return reply;
      return undefined;
    });

    api.get(
      '/api/v1/services',
      {
        schema: {
          summary: 'Service discovery: URL, version, live health and breaker state of each backend',
          security: [{ bearerAuth: [] }],
        },
      },
      async (request) => {
        assertScope(requireAuth(request), 'read');
        return { services: await discoverServices(deps.backends) };
      },
    );

    api.post<{ Params: { name: string } }>(
      '/api/v1/services/:name/breaker/reset',
      {
        schema: { summary: 'Close a backend circuit breaker (admin)', security: [{ bearerAuth: [] }] },
      },
      async (request) => {
        const auth = requireAuth(request);
        assertAdmin(auth);
        assertScope(auth, 'admin');
        const backend = deps.backends.get(request.params.name);
        if (!backend) throw new NotFoundError(`Unknown service '${request.params.name}'`);
        backend.reset();
        return { name: backend.name, breaker: backend.state() };
      },
    );

    for (const route of deps.routes) {
      api.route({
        method: route.method,
        url: route.url,
        schema: { summary: route.summary, security: [{ bearerAuth: [] }] },
        handler: (request, reply) => handleProxy(route, deps, request, reply),
      });
    }
  });
}

async function handleProxy(
  route: ProxyRoute,
  deps: RestGatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const auth = requireAuth(request);
  assertScope(auth, requiredScope(route, request.method));
  const raw = Buffer.isBuffer(request.body) ? request.body : undefined;
  // The kernel's input guard, with the limits every backend applies: a body a backend would
  // refuse gets the same 422 here, before it is read for tenant_id or sent anywhere.
  const json = raw && raw.length > 0 ? parseJsonStrict(raw, request.server.inputLimits) : undefined;
  const sources = { header: request.headers['x-tenant-id'], query: request.query, body: json };
  const tenantId = effectiveTenant(auth, sources);
  // A tenant's own calls are pinned to its tenant where the backend reads one; a platform admin
  // who names no tenant keeps the backend's platform-wide meaning (e.g. verify every chain).
  const inject = route.injectTenant && (namesTenant(auth, sources) || !actsForAnyTenant(auth));

  const queryIndex = request.url.indexOf('?');
  const params = new URLSearchParams(queryIndex >= 0 ? request.url.slice(queryIndex + 1) : '');
  if (inject && route.injectTenant === 'query') params.set('tenant_id', tenantId);
  let body = raw;
  if (
    raw &&
    inject &&
    route.injectTenant === 'body' &&
    json &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    !('tenant_id' in json)
  ) {
    body = withTenantId(raw, json, tenantId);
  }
  const search = params.size > 0 ? `?${params.toString()}` : '';
  const path = route.wildcard
    ? joinPath(route.upstreamPath, (request.params as Record<string, string>)['*'] ?? '')
    : route.upstreamPath;
  if (!raw && request.body && !(request.body instanceof Readable))
    request.log.warn('unexpected parsed body on proxied route');
  return proxyRequest(request, reply, {
    backend: deps.backends.get(route.backend)!,
    path,
    search,
    tenantId,
    body,
    timeoutMs: deps.config.upstreamTimeoutMs,
    resetTimeoutMs: deps.config.breaker.resetTimeoutMs,
  });
}

/**
 * The client's bytes with `"tenant_id": ...` added before the closing brace: the body is never
 * re-serialised, so nothing the client sent (number spelling, escapes, key order) changes on the
 * way. Only called on a body the guard accepted as a JSON object, whose last non-blank byte is
 * therefore `}` (an ASCII byte cannot occur inside a multi-byte UTF-8 sequence).
 */
function withTenantId(raw: Buffer, json: object, tenantId: string): Buffer {
  const close = raw.lastIndexOf(0x7d);
  const member = `${Object.keys(json).length > 0 ? ',' : ''}"tenant_id":${JSON.stringify(tenantId)}`;
  return Buffer.concat([raw.subarray(0, close), Buffer.from(member, 'utf8'), raw.subarray(close)]);
}

function joinPath(prefix: string, remainder: string): string {
  const clean = remainder.split('/').map(encodeURIComponent).join('/');
  return `${prefix.replace(/\/$/, '')}/${clean}`;
}
