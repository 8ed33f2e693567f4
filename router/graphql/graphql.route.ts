// POST/GET /graphql: Apollo Server running the federated gateway, driven through its
// framework-neutral executeHTTPGraphQLRequest on the gateway's Fastify app. Before Apollo sees
// a request the router limits it per client address, authenticates it (a bad token is 401
// UNAUTHENTICATED; no token is anonymous, and @authenticated fields then refuse it), settles the
// tenant, applies the per-tenant rate limit, and sends multipart uploads down their own path.
import { ApolloServer, HeaderMap } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { ApolloGateway } from '@apollo/gateway';
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
import { UNCACHEABLE } from './cache-control';
import { formatRouterError } from './error-format';
import { graphqlRefusals } from './graphql-refusals';
import { guardedGateway } from './guarded-gateway';
import type { GuardLimits } from './operation-guard';

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

export async function mountGraphQLRoute(
  app: FastifyInstance,
  options: GraphQLRouteOptions,
): Promise<ApolloServer<RouterContext>> {
  const server = new ApolloServer<RouterContext>({
    // The operation guard runs in front of the gateway's executor (guarded-gateway.ts says why
    // not in a plugin).
    gateway: guardedGateway(options.gateway, { authRules: () => options.model().authRules, limits: options.limits }),
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
    // No request plugin at all: Apollo Server awaits each plugin's hooks at every stage of every
    // request, and each promise costs hook calls once tracing is on (issue 31). The guard is in
    // front of the executor (guarded-gateway.ts), Cache-Control is written by the executor and
    // below (cache-control.ts), and inline traces are for subgraphs (Apollo's default plugin does
    // nothing for a gateway's schema, but its async requestDidStart was awaited on every request).
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
    ],
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
  // Not cacheable unless the executor said so (cache-control.ts).
  if (!response.headers.has('cache-control')) response.headers.set('cache-control', UNCACHEABLE);
  for (const [key, value] of response.headers) reply.header(key, value);
  reply.code(response.status ?? 200);
  if (response.body.kind === 'complete') return reply.send(response.body.string);
  return reply.send(Readable.from(response.body.asyncIterator));
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
