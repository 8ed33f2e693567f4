// graphql-ws on the gateway's own /graphql path (ws's WebSocketServer on the HTTP server's
// 'upgrade'). The connection is authenticated once from `connectionParams` (Authorization or
// token, optional X-Tenant-ID checked like on HTTP); a missing or bad token closes it with 4401.
// Each operation is validated and guarded like an HTTP one; subscriptions are carried to the
// owning subgraph (subscription.forwarder.ts), queries and mutations run through the gateway.
import type { FastifyInstance } from 'fastify';
import { setMaxListeners } from 'node:events';
import type { Duplex } from 'node:stream';
import { getOperationAST, GraphQLError, print, type DocumentNode, type ExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { UpstreamPool, type UpstreamKey } from './upstream.pool';
import { useServer } from 'graphql-ws/use/ws';
import WebSocket, { WebSocketServer } from 'ws';
import type { ApolloServer } from '@apollo/server';
import type { AuthContext } from '../../platform/auth/auth-context';
import { bearerToken } from '../../platform/auth/jwt';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import type { Logger } from '../../platform/logging/logger';
import type { RateLimiter } from '../edge/rate-limit/rate-limiter';
import { limitUpgrade } from '../http/client-ip.limit';
import { clientAddress, parseTrustedProxies, type TrustedProxies } from '../../platform/http/trusted-proxies';
import { effectiveTenant } from '../../platform/auth/tenant.rule';
import { sanitizeError } from '../graphql/error-format';
import { guardOperation, type GuardLimits } from '../graphql/operation-guard';
import { forwardedHeaders, type RouterContext } from '../router.context';
import type { SupergraphModel } from '../supergraph/supergraph.model';
import { checkedDocument } from './checked-documents';
import { SharedSubscriptions, type StartRun } from './shared.subscriptions';
import { forwardSubscription } from './subscription.forwarder';

export interface SubscriptionServerOptions {
  model(): SupergraphModel;
  verifier: TokenAuthenticator;
  limits: GuardLimits;
  resolveUrl(subgraph: string): string;
  logger: Logger;
  /** Runs queries and mutations sent over the socket through the gateway. */
  server?: () => ApolloServer<RouterContext> | undefined;
  /** The same per-tenant budget as HTTP: every operation started over the socket takes a token. */
  limiter?: RateLimiter;
  /** The per-address budget of HTTP, spent by each upgrade before its token is verified. */
  ipLimiter?: RateLimiter;
  /** Whose X-Forwarded-For names the client of an upgrade (as request.ip on HTTP); none by default. */
  trustedProxies?: TrustedProxies;
  /** Development only: masked errors carry their original message as `extensions.detail`. */
  exposeErrorDetails?: boolean;
}

interface Connection {
  context: RouterContext;
  /** This connection's shares of the caller's upstream sockets, by subgraph (upstream.pool.ts). */
  upstream: Map<string, Client>;
  /** Aborted when the client's socket ends, however it ends (close, drop, error). */
  ended: AbortController;
  /** Holds this socket's writes until the current burst of deliveries is written (one write for all). */
  batchWrites: () => void;
}

/** Ends everything upstream of one client connection; safe to call more than once. graphql-ws
 * calls onClose only after every subscription's return() settles, which for one waiting on an
 * upstream event is never, so this runs on the socket's own 'close' event instead. */
function endConnection(conn: Connection, pool: UpstreamPool): void {
  if (conn.ended.signal.aborted) return;
  // Aborting ends each of this connection's subscriptions upstream (`complete` on the shared
  // socket, forwardSubscription); the shares are then given back, the last one closing the socket.
  conn.ended.abort();
  for (const subgraph of conn.upstream.keys()) pool.release(upstreamKey(conn, subgraph));
  conn.upstream.clear();
}

function upstreamKey(conn: Connection, subgraph: string): UpstreamKey {
  return { subgraph, token: conn.context.token ?? '', tenantId: conn.context.tenantId ?? '' };
}

const NO_PROXIES = parseTrustedProxies('');
/** How long a subscriber gets to answer the close frame at shutdown before its socket is cut. */
const CLOSE_GRACE_MS = 2_000;

export function attachSubscriptionServer(
  app: FastifyInstance,
  options: SubscriptionServerOptions,
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true });
  const connections = new WeakMap<object, Connection>();
  /** The TCP socket under each client's WebSocket (corked while one event fans out to it). */
  const transports = new WeakMap<WebSocket, Duplex>();
  const shared = new SharedSubscriptions();
  const pool = new UpstreamPool(
    (key, eager) => openUpstream(key, eager, options),
    (err, subgraph) => options.logger.debug({ err, subgraph }, 'upstream subscription client already gone'),
  );

  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/graphql') {
      socket.destroy();
      return;
    }
    // The socket has no error listener until ws takes it: one that resets meanwhile is dropped.
    const dropOnError = () => socket.destroy();
    socket.on('error', dropOnError);
    const address = clientAddress(request, options.trustedProxies ?? NO_PROXIES);
    void limitUpgrade(options.ipLimiter, address, socket, options.logger).then((allowed) => {
      socket.off('error', dropOnError);
      if (allowed && !socket.destroyed)
        wss.handleUpgrade(request, socket, head, (ws) => {
          transports.set(ws, socket);
          wss.emit('connection', ws, request);
        });
    });
  });

  const disposable = useServer<
    Record<string, unknown> | undefined,
    { socket: WebSocket; request: import('node:http').IncomingMessage }
  >(
    {
      schema: () => options.model().apiSchema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const token = bearerToken(stringParam(params, 'authorization')) ?? stringParam(params, 'token');
        let auth: AuthContext;
        try {
          if (!token) throw new Error('missing');
          auth = await options.verifier.authenticate(token);
        } catch {
          ctx.extra.socket.close(4401, 'Unauthorized: connectionParams need a valid Authorization bearer token');
          return false;
        }
        let tenantId: string;
        try {
          tenantId = effectiveTenant(auth, { header: stringParam(params, 'x-tenant-id') });
        } catch {
          ctx.extra.socket.close(4403, 'Forbidden: access to this tenant is not allowed');
          return false;
        }
        const socket = ctx.extra.socket;
        // The socket may have gone while the token was being verified: nothing to set up then.
        if (socket.readyState !== WebSocket.OPEN) return false;
        const correlation = stringParam(params, 'x-correlation-id');
        const conn: Connection = {
          context: {
            auth,
            token,
            tenantId,
            correlationId:
              correlation && /^[A-Za-z0-9._:-]{1,128}$/.test(correlation) ? correlation : crypto.randomUUID(),
            traceparent: stringParam(params, 'traceparent'),
          },
          upstream: new Map(),
          ended: endedSignal(),
          batchWrites: corkForBurst(transports.get(socket)),
        };
        connections.set(ctx, conn);
        socket.once('close', () => endConnection(conn, pool));
        // The caller's upstream sockets open now if none is open yet, while the client receives
        // its ack, so a subscribe that follows only sends one message upstream instead of a
        // WebSocket handshake and an init.
        for (const subgraph of subscriptionOwners(options.model())) upstreamClient(conn, subgraph, pool, true);
        return true;
      },
      onClose: async (ctx) => {
        const conn = connections.get(ctx);
        if (conn) endConnection(conn, pool);
      },
      // Every error sent over the socket is reduced to message and code like on HTTP: upstream
      // subscription errors, entity-completion errors and the router's own refusals alike.
      onNext: (_ctx, _id, _payload, _args, result) => {
        if (!result.errors?.length) return undefined;
        return {
          ...result,
          errors: result.errors.map((e) => sanitizeError(e, { exposeDetails: options.exposeErrorDetails })),
        };
      },
      onError: (_ctx, _id, _payload, errors) =>
        errors.map((e) => sanitizeError(e, { exposeDetails: options.exposeErrorDetails })),
      onSubscribe: async (ctx, _id, payload) => {
        const conn = connections.get(ctx);
        if (!conn) return [new GraphQLError('Connection not initialised', { extensions: { code: 'UNAUTHENTICATED' } })];
        const limited = await rateLimited(
          options.limiter,
          conn.context.auth?.tenantId ?? conn.context.tenantId ?? '',
          options.logger,
        );
        if (limited) return [limited];
        const model = options.model();
        const checked = checkedDocument(model.apiSchema, payload.query);
        if (checked.errors) return checked.errors;
        const document = checked.document;
        const operation = getOperationAST(document, payload.operationName ?? undefined);
        if (!operation)
          return [
            new GraphQLError('Could not determine the operation to run', { extensions: { code: 'BAD_REQUEST' } }),
          ];
        const denied = guardOperation(
          model.apiSchema,
          model.authRules,
          options.limits,
          document,
          operation,
          payload.variables ?? {},
          conn.context.auth,
        );
        if (denied) {
          const { http: _http, ...extensions } = denied.extensions as Record<string, unknown>;
          return [new GraphQLError(denied.message, { extensions })];
        }
        return {
          schema: model.apiSchema,
          document,
          operationName: payload.operationName ?? undefined,
          variableValues: payload.variables ?? {},
          contextValue: conn,
        };
      },
      subscribe: (args) => {
        const conn = args.contextValue as Connection;
        const variables = (args.variableValues ?? {}) as Record<string, unknown>;
        const operationName = args.operationName ?? undefined;
        // Everything the forwarded result depends on: the caller (the upstream socket's key, the
        // entity fetches' token and tenant), the document and the variables.
        const key = [
          conn.context.token ?? '',
          conn.context.tenantId ?? '',
          operationName ?? '',
          JSON.stringify(variables),
          args.document.loc?.source.body ?? print(args.document),
        ].join('\u0000');
        return shared.subscribe(key, forwardRun(conn, args.document, operationName, variables, pool, options), {
          signal: conn.ended.signal,
          beforeDeliver: conn.batchWrites,
        });
      },
      execute: async (args): Promise<ExecutionResult> => {
        const conn = args.contextValue as Connection;
        const server = options.server?.();
        if (!server)
          return {
            errors: [
              new GraphQLError('Queries over WebSocket are not available', { extensions: { code: 'BAD_REQUEST' } }),
            ],
          };
        const response = await server.executeOperation(
          {
            query: print(args.document),
            variables: (args.variableValues ?? {}) as Record<string, unknown>,
            operationName: args.operationName ?? undefined,
          },
          { contextValue: conn.context },
        );
        return response.body.kind === 'single'
          ? (response.body.singleResult as ExecutionResult)
          : { errors: [new GraphQLError('Incremental delivery is not supported over WebSocket')] };
      },
    },
    wss,
  );

  return {
    async close() {
      for (const ws of wss.clients) ws.close(1001, 'Going away');
      // A client that never answers the close frame would hold the server until ws's own 30 s
      // close timeout: cut such sockets after a short grace instead.
      const cut = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, CLOSE_GRACE_MS);
      cut.unref();
      await disposable.dispose();
      clearTimeout(cut);
    },
  };
}

/** Every subscription of the connection listens for its end: a hundred are expected, not a leak. */
function endedSignal(): AbortController {
  const ended = new AbortController();
  setMaxListeners(0, ended.signal);
  return ended;
}

/** The one forwarded run of a shared subscription (shared.subscriptions.ts). It holds shares of
 * the caller's upstream sockets of its own, so it outlives the connection that started it while
 * other connections' members remain; entity fetches carry that first connection's correlation id. */
function forwardRun(
  conn: Connection,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  pool: UpstreamPool,
  options: SubscriptionServerOptions,
): StartRun {
  return (signal) => {
    const model = options.model();
    const held = new Set<string>();
    const headers = { ...forwardedHeaders(conn.context), 'content-type': 'application/json' };
    const run = forwardSubscription({
      model,
      signal,
      document,
      operation: getOperationAST(document, operationName)!,
      variables,
      upstream: (subgraph) => {
        const client = pool.acquire(upstreamKey(conn, subgraph));
        // A run asks once per subgraph; a second share would only be given back twice.
        if (held.has(subgraph)) pool.release(upstreamKey(conn, subgraph));
        held.add(subgraph);
        return client;
      },
      fetchEntities: async (subgraph, query, representations) => {
        const res = await fetch(options.resolveUrl(subgraph), {
          method: 'POST',
          headers,
          body: JSON.stringify({ query, variables: { representations } }),
          signal,
        });
        return (await res.json()) as Awaited<ReturnType<Parameters<typeof forwardSubscription>[0]['fetchEntities']>>;
      },
    });
    return releasing(run, () => {
      for (const subgraph of held) pool.release(upstreamKey(conn, subgraph));
    });
  };
}

async function* releasing<T>(
  source: AsyncGenerator<T, void, unknown>,
  release: () => void,
): AsyncGenerator<T, void, unknown> {
  try {
    yield* source;
  } finally {
    release();
  }
}

/** Corks a client's TCP socket on the first delivery of a burst and writes the lot once the
 * burst's microtasks have run: one event fanned out to a connection's many subscriptions leaves
 * in one write instead of one per subscription. */
function corkForBurst(transport: Duplex | undefined): () => void {
  if (!transport) return () => {};
  let corked = false;
  return () => {
    if (corked || transport.destroyed) return;
    corked = true;
    transport.cork();
    setImmediate(() => {
      corked = false;
      transport.uncork();
    });
  };
}

/** The subgraphs that serve any Subscription root field (computed once per supergraph). */
const ownersBySchema = new WeakMap<SupergraphModel, string[]>();
function subscriptionOwners(model: SupergraphModel): string[] {
  let owners = ownersBySchema.get(model);
  if (!owners) {
    const fields = Object.keys(model.apiSchema.getSubscriptionType()?.getFields() ?? {});
    owners = [
      ...new Set(fields.map((f) => model.ownerOf('Subscription', f)).filter((o): o is string => o !== undefined)),
    ];
    ownersBySchema.set(model, owners);
  }
  return owners;
}

/** This connection's share of the caller's socket to `subgraph`, taken at the first use. */
function upstreamClient(conn: Connection, subgraph: string, pool: UpstreamPool, eager = false): Client {
  // A connection that has ended takes no new share (it gave its shares back).
  if (conn.ended.signal.aborted) throw new Error('client connection closed');
  let client = conn.upstream.get(subgraph);
  if (!client) {
    client = pool.acquire(upstreamKey(conn, subgraph), eager);
    conn.upstream.set(subgraph, client);
  }
  return client;
}

function openUpstream(key: UpstreamKey, eager: boolean, options: SubscriptionServerOptions): Client {
  const url = options.resolveUrl(key.subgraph).replace(/^http/, 'ws');
  // The caller's token and tenant: the subgraph authenticates the same caller (the key is exactly
  // these two). The socket is shared, so it carries a correlation id of its own, not one client
  // connection's, and no traceparent.
  const headers = forwardedHeaders({ token: key.token, tenantId: key.tenantId, correlationId: crypto.randomUUID() });
  return createClient({
    url,
    webSocketImpl: WebSocket,
    lazy: !eager,
    // An eager socket that fails is not an error yet: a later subscribe reconnects and reports.
    onNonLazyError: (err) =>
      options.logger.debug({ err, subgraph: key.subgraph }, 'upstream subscription socket could not open early'),
    retryAttempts: 0,
    connectionParams: { ...headers, Authorization: headers.authorization, tenantId: key.tenantId },
  });
}

async function rateLimited(
  limiter: RateLimiter | undefined,
  tokenTenant: string,
  logger: Logger,
): Promise<GraphQLError | undefined> {
  if (!limiter) return undefined;
  try {
    // The HTTP key (rate-limit.hook.ts): one budget per tenant whichever door it uses.
    const decision = await limiter.take(`tenant:${tokenTenant}`);
    if (decision.allowed) return undefined;
    return new GraphQLError('Rate limit exceeded for this tenant', {
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: decision.retryAfterSeconds },
    });
  } catch (err) {
    // As on HTTP: a rate-limit store outage fails open, and says so.
    logger.warn({ err }, 'rate limiter unavailable; operation allowed');
    return undefined;
  }
}

function stringParam(params: Record<string, unknown>, name: string): string | undefined {
  for (const [k, v] of Object.entries(params)) if (k.toLowerCase() === name && typeof v === 'string') return v;
  return undefined;
}
