// graphql-ws on the gateway's own /graphql path (ws's WebSocketServer on the HTTP server's
// 'upgrade'). The connection is authenticated once from `connectionParams` (Authorization or
// token, optional X-Tenant-ID checked like on HTTP); a missing or bad token closes it with 4401.
// Each operation is validated and guarded like an HTTP one; subscriptions are carried to the
// owning subgraph (subscription.forwarder.ts), queries and mutations run through the gateway.
import type { FastifyInstance } from 'fastify';
import {
  getOperationAST,
  GraphQLError,
  parse,
  print,
  validate,
  type DocumentNode,
  type ExecutionResult,
} from 'graphql';
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
import { promptReturn } from './prompt-return';
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
        wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
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
          ended: new AbortController(),
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
        let document: DocumentNode;
        try {
          document = parse(payload.query);
        } catch (err) {
          return [new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
        }
        const invalid = validate(model.apiSchema, document);
        if (invalid.length)
          return invalid.map(
            (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
          );
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
        const model = options.model();
        const operation = getOperationAST(args.document, args.operationName ?? undefined)!;
        // Ends this subscription alone (the client's `complete`), or with its connection.
        const completed = new AbortController();
        const signal = AbortSignal.any([conn.ended.signal, completed.signal]);
        return promptReturn(
          forwardSubscription({
            model,
            signal,
            document: args.document,
            operation,
            variables: (args.variableValues ?? {}) as Record<string, unknown>,
            upstream: (subgraph) => upstreamClient(conn, subgraph, pool),
            fetchEntities: async (subgraph, query, representations) => {
              const res = await fetch(options.resolveUrl(subgraph), {
                method: 'POST',
                headers: { ...forwardedHeaders(conn.context), 'content-type': 'application/json' },
                body: JSON.stringify({ query, variables: { representations } }),
                signal,
              });
              return (await res.json()) as Awaited<
                ReturnType<Parameters<typeof forwardSubscription>[0]['fetchEntities']>
              >;
            },
          }),
          () => completed.abort(),
        );
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
