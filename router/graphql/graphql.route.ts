// POST/GET /graphql: Apollo Server running the federated gateway, driven through its
// framework-neutral executeHTTPGraphQLRequest on the gateway's Fastify app. Before Apollo sees
// a request the router limits it per client address, authenticates it (a bad token is 401
// UNAUTHENTICATED; no token is anonymous, and @authenticated fields then refuse it), settles the
// tenant, applies the per-tenant rate limit, and sends multipart uploads down their own path.
import { ApolloServer, HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { ApolloGateway } from '@apollo/gateway';
import { trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { bearerToken } from '../../platform/auth/jwt';
import { AuthenticationError, DomainError } from '../../platform/errors/domain-errors';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { effectiveTenant } from '../../platform/auth/tenant.rule';
import { applyRateLimit } from '../edge/rate-limit/rate-limit.hook';
import { limitClientIp } from '../http/client-ip.limit';
import type { GraphQLIde } from '../ide/ide.plugin';
import type { RateLimiter } from '../edge/rate-limit/rate-limiter';
import type { RouterContext } from '../router.context';
import type { SupergraphModel } from '../supergraph/supergraph.model';
import { forwardUpload, type UploadForwarderOptions } from '../uploads/upload.forwarder';
import { formatRouterError } from './error-format';
import { graphqlRefusals } from './graphql-refusals';
import { guardOperation, type GuardLimits } from './operation-guard';

export interface GraphQLRouteOptions {
  gateway: ApolloGateway;
  model(): SupergraphModel;
  verifier: TokenAuthenticator;
  limiter: RateLimiter;
  /** Per client address, before authentication; absent = off. */
  ipLimiter?: RateLimiter;
  limits: GuardLimits;
  production: boolean;
  /** Development only: masked errors carry their original message as `extensions.detail`. */
  exposeErrorDetails: boolean;
  uploads: Omit<UploadForwarderOptions, 'model' | 'limits'>;
  /** The offline GraphiQL page for browsers (GRAPHQL_IDE); absent = no page at all. */
  ide?: GraphQLIde;
}

function guardPlugin(options: GraphQLRouteOptions): ApolloServerPlugin<RouterContext> {
  // The listener keeps nothing per request, so every request gets the same one, already resolved:
  // an async requestDidStart was one more promise per query, and each promise costs hook calls once
  // tracing's AsyncLocalStorage is on (issue 31).
  const listener: Promise<GraphQLRequestListener<RouterContext>> = Promise.resolve({
    async didResolveOperation({ document, operation, request, contextValue, schema }) {
      if (!operation) return;
      // On the request's server span: Apollo gateway's own `gateway.request` span, which carried
      // them, is not made (platform/telemetry/gateway-spans.ts).
      const span = trace.getActiveSpan();
      if (span?.isRecording()) {
        span.setAttribute('graphql.operation.type', operation.operation);
        if (operation.name) span.setAttribute('graphql.operation.name', operation.name.value);
      }
      const denied = guardOperation(
        schema,
        options.model().authRules,
        options.limits,
        document,
        operation,
        request.variables,
        contextValue.auth,
      );
      if (denied) throw denied;
    },
  });
  return { requestDidStart: () => listener };
}

export async function mountGraphQLRoute(
  app: FastifyInstance,
  options: GraphQLRouteOptions,
): Promise<ApolloServer<RouterContext>> {
  const server = new ApolloServer<RouterContext>({
    gateway: options.gateway,
    introspection: !options.production,
    // The launcher owns SIGTERM/SIGINT (drain, close in order, log 'stopped'); Apollo's own handler
    // would stop this server first and re-raise the signal, ending the process mid-drain.
    stopOnTerminationSignals: false,
    // Automatic persisted queries (Apollo's protocol) are on with a bounded in-memory LRU cache.
    persistedQueries: {},
    // Stack traces never leave the process (5xx details are logged, not sent).
    includeStacktraceInErrorResponses: false,
    // A message and a code per error; subgraph URLs, bodies and internals stay here (error-format.ts).
    formatError: (formatted, error) =>
      formatRouterError(formatted, error, { exposeDetails: options.exposeErrorDetails }),
    // Never Apollo's landing page: it loads Apollo Sandbox from Apollo's CDN, which an offline or
    // air-gapped deployment cannot reach. Browsers get router/ide's GraphiQL instead, if enabled.
    plugins: [guardPlugin(options), ApolloServerPluginLandingPageDisabled()],
    logger: { debug: () => {}, info: () => {}, warn: (m) => app.log.warn(m), error: (m) => app.log.error(m) },
  });
  await server.start();
  app.addHook('onClose', async () => server.stop());

  await app.register(async (scope) => {
    // Multipart bodies are read by graphql-upload-ts from the raw request, so Fastify leaves them alone.
    scope.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
    scope.addHook('onSend', graphqlRefusals);
    scope.route({
      method: ['GET', 'POST'],
      url: '/graphql',
      schema: { hide: true },
      handler: (request, reply) => handle(server, options, request, reply),
    });
  });
  return server;
}

async function handle(
  server: ApolloServer<RouterContext>,
  options: GraphQLRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  // Before the token is verified: floods of bad tokens are refused by address (same 429 as below).
  // The checks answer without a promise when they can (memory buckets, a cached token): each
  // promise of a query costs hook calls once tracing's AsyncLocalStorage is on (issue 31).
  const ipAllowed = limitClientIp(options.ipLimiter, request, reply);
  if (ipAllowed !== true && !(await ipAllowed)) return reply;
  if (options.ide?.wantsPage(request)) return options.ide.sendPage(request, reply);
  const context: RouterContext = {
    correlationId: request.id,
    traceparent: header(request, 'traceparent'),
    tracestate: header(request, 'tracestate'),
  };
  const token = bearerToken(request.headers.authorization);
  try {
    if (request.headers.authorization !== undefined) {
      if (!token) throw new AuthenticationError();
      context.auth = options.verifier.cached?.(token) ?? (await options.verifier.authenticate(token));
      context.token = token;
      request.auth = context.auth;
    }
    if (context.auth) context.tenantId = effectiveTenant(context.auth, { header: request.headers['x-tenant-id'] });
    else if (request.headers['x-tenant-id'] !== undefined)
      throw new AuthenticationError('A tenant can only be chosen by an authenticated caller');
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const code = err.code;
    const status = code === 'UNAUTHENTICATED' ? 401 : code === 'FORBIDDEN' ? 403 : 503;
    if (status === 401) reply.header('WWW-Authenticate', 'Bearer');
    return reply.code(status).send({ errors: [{ message: err.message, extensions: { code } }] });
  }
  const allowed = applyRateLimit(options.limiter, request, reply);
  if (allowed !== true && !(await allowed)) return reply;

  if (request.headers['content-type']?.startsWith('multipart/form-data')) {
    return forwardUpload(
      {
        ...options.uploads,
        model: options.model,
        limits: options.limits,
        exposeErrorDetails: options.exposeErrorDetails,
      },
      request,
      reply,
      context,
    );
  }

  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const queryIndex = request.url.indexOf('?');
  const response = await server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: request.method.toUpperCase(),
      headers,
      search: queryIndex >= 0 ? request.url.slice(queryIndex) : '',
      body: request.body,
    },
    context: async () => context,
  });
  for (const [key, value] of response.headers) reply.header(key, value);
  reply.code(response.status ?? 200);
  if (response.body.kind === 'complete') return reply.send(response.body.string);
  return reply.send(Readable.from(response.body.asyncIterator));
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
