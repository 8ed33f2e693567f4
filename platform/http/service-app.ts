// The HTTP bootstrap every service shares: Fastify with FastAPI-shaped errors, the kernel's input
// guard (body size, URL and header size, strict JSON, no NUL or lone surrogate in query, path or
// form values; see docs/security.md), one JSON log line per request (method, path, status, duration, tenant, correlation id), health
// routes, OpenAPI generated from the route schemas, and a graceful close.
import { registerRequestTelemetry } from '../telemetry/request-telemetry';
import swagger from '@fastify/swagger';
import formbody from '@fastify/formbody';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { PlatformConfig } from '../config/platform.config';
import type { AuthContext } from '../auth/auth-context';
import { loggerOptions } from '../logging/logger';
import { deferRequestChildren } from '../logging/lazy-child-logger';
import { redactText } from '../redaction';
import { clientErrorHandler, frameworkErrors, URL_TOO_LONG, urlTooLong } from './client-errors';
import { KernelResponse, markClosing } from './closing-response';
import { correlationIdFor } from './correlation';
import { registerErrorHandler } from './error-handler';
import { registerHealthRoutes, type HealthOptions } from './health';
import { registerJsonBodyParser } from './json-body';
import { registerTextGuard } from './text-guard';
import type { TrustedProxies } from './trusted-proxies';
import { validatorCompiler } from './validation';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook once a bearer token is verified. */
    auth?: AuthContext;
  }
}

export interface ServiceAppOptions {
  name: string;
  title: string;
  version: string;
  description?: string;
  config: PlatformConfig;
  health: HealthOptions;
  /** Balancers whose X-Forwarded-For decides request.ip (the gateway's TRUSTED_PROXIES); none by default. */
  trustedProxies?: TrustedProxies;
}

/** pino's level check (Fastify's logger type does not declare it); any other logger: yes. */
function infoEnabled(log: FastifyBaseLogger): boolean {
  const check = (log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled;
  return check ? check.call(log, 'info') : true;
}

export async function createServiceApp(options: ServiceAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const proxies = options.trustedProxies;
  const app = Fastify({
    // Without trusted proxies request.ip is the TCP peer and X-Forwarded-For is ignored.
    trustProxy:
      proxies && proxies.entries.length > 0 ? (address: string, hop: number) => proxies.trust(address, hop) : false,
    logger: loggerOptions(config.logLevel, options.name),
    bodyLimit: config.http.bodyLimitBytes,
    genReqId: correlationIdFor,
    // Our own one-line-per-request log (onResponse below) replaces Fastify's two lines.
    logController: new LogController({ requestIdLogLabel: 'correlationId', disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    // Responses that ask for the connection to close once the server is closing (closing-response.ts).
    http: { maxHeaderSize: config.http.maxHeaderBytes, ServerResponse: KernelResponse },
    clientErrorHandler: clientErrorHandler(config.http.maxUrlLength),
    frameworkErrors,
  });
  // Per-request loggers that cost nothing until a line is written (lazy-child-logger.ts).
  deferRequestChildren(app.log);
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandler(app);
  // Every request object gets `auth` in its constructor, so setting it later (authentication)
  // does not change its shape: the shared hooks and handlers then see one shape per route, not two.
  app.decorateRequest('auth', undefined);

  // Graceful close: Fastify stops accepting new requests and waits for in-flight ones; responses
  // sent meanwhile ask the client to drop the keep-alive connection, so close() need not wait
  // for idle sockets to time out (closing-response.ts).
  app.addHook('preClose', (done) => {
    markClosing(app.server);
    done();
  });
  // Callback hooks (not async) on the hot path, one per stage where the kernel needs it: each hook
  // Fastify runs costs a call chain per request (issue 35).
  const maxUrlLength = config.http.maxUrlLength;
  app.addHook('onRequest', (request, reply, done) => {
    // Lower case, as Fastify keeps (and sends) reply headers: its toLowerCase then copies nothing.
    reply.header('x-correlation-id', request.id);
    // Before authentication or any handler (client-errors.ts).
    if (urlTooLong(request, maxUrlLength)) return void reply.code(414).send({ detail: URL_TOO_LONG });
    done();
  });
  // The path as logged: decoded and redacted, since an id in it may be personal data (issue 12).
  const loggedPath = (url: string) => {
    const path = url.split('?')[0]!;
    let decoded = path;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      // a malformed escape: redact the raw form
    }
    return redactText(decoded).text;
  };
  const logCompleted = (request: FastifyRequest, reply: FastifyReply) => {
    request.log.info(
      {
        method: request.method,
        path: loggedPath(request.url),
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        tenant: request.auth?.tenantId ?? request.raw.headers['x-tenant-id'],
      },
      'request completed',
    );
  };

  await app.register(formbody);
  registerJsonBodyParser(app, {
    maxBytes: config.http.bodyLimitBytes,
    maxDepth: config.http.jsonMaxDepth,
    maxStringLength: config.http.jsonMaxStringLength,
  });
  registerTextGuard(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: options.title, version: options.version, description: options.description },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
  });
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerHealthRoutes(app, { ...options.health, service: options.name, version: options.version });
  // GET /metrics, and one onResponse hook for both the log line and the request metrics.
  const recordMetrics = registerRequestTelemetry(app, options.name);
  app.addHook('onResponse', (request, reply, done) => {
    recordMetrics(request, reply);
    // The line's fields (a redacted path above all) cost more than the line when it is not written.
    if (infoEnabled(request.log)) logCompleted(request, reply);
    done();
  });
  return app;
}
