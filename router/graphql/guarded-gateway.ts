// The gateway Apollo Server runs, with the router's operation guard (operation-guard.ts) in front
// of its executor: an operation Apollo Server has parsed, validated and resolved is checked against
// the limits and the @authenticated rules before the gateway plans it or calls a subgraph.
//
// Why not a plugin's didResolveOperation (where the guard was): Apollo Server awaits every
// request listener at each of its seven stages per request (`Promise.all` over the listeners,
// hooks they do not have included), so one more listener was about 15 promises per query, and
// each promise costs hook calls once tracing's AsyncLocalStorage is on (issue 31). The executor
// is called at the same point of the pipeline for an operation that will run, and an error it
// throws becomes the same response (Apollo Server's sendErrorResponse, formatError, status from
// the error's `extensions.http`). The executor also writes a cacheable answer's Cache-Control
// (cache-control.ts), which Apollo's cache-control plugin did. One difference: an automatic persisted query is registered
// between the two points, so a refused operation sent with its hash is kept in the bounded APQ
// cache and its hash alone is refused the same way afterwards (rather than PERSISTED_QUERY_NOT_FOUND).
import type { ApolloGateway } from '@apollo/gateway';
import { trace } from '@opentelemetry/api';
import type { RouterContext } from '../router.context';
import type { AuthRules } from './auth-rules';
import { cacheableHeader } from './cache-control';
import { guardOperation, type GuardLimits } from './operation-guard';

type Loaded = Awaited<ReturnType<ApolloGateway['load']>>;
type Executor = NonNullable<Loaded['executor']>;

export interface GuardedGatewayOptions {
  authRules(): AuthRules;
  limits: GuardLimits;
}

/** The part of ApolloGateway Apollo Server uses (its GatewayInterface). */
export type GuardedGateway = Pick<ApolloGateway, 'load' | 'onSchemaLoadOrUpdate' | 'stop'>;

function guardedExecutor(executor: Executor, options: GuardedGatewayOptions): Executor {
  // Not async: one `.then` (for the answer's Cache-Control, cache-control.ts), not an async
  // function's promise and its await as well.
  return (requestContext) => {
    const { operation, document, request, schema } = requestContext;
    // On the request's server span: Apollo gateway's own `gateway.request` span, which carried
    // them, is not made (platform/telemetry/gateway-spans.ts).
    const span = trace.getActiveSpan();
    if (span?.isRecording()) {
      span.setAttribute('graphql.operation.type', operation.operation);
      if (operation.name) span.setAttribute('graphql.operation.name', operation.name.value);
    }
    const denied = guardOperation(
      schema,
      options.authRules(),
      options.limits,
      document,
      operation,
      request.variables,
      (requestContext.context as RouterContext).auth,
    );
    if (denied) return Promise.reject(denied);
    return executor(requestContext).then((result) => {
      const header = cacheableHeader(requestContext.overallCachePolicy, result.errors);
      if (header) requestContext.response?.http?.headers.set('cache-control', header);
      return result;
    });
  };
}

export function guardedGateway(gateway: ApolloGateway, options: GuardedGatewayOptions): GuardedGateway {
  return {
    load: async (loadOptions) => {
      const loaded = await gateway.load(loadOptions);
      return { ...loaded, executor: loaded.executor && guardedExecutor(loaded.executor, options) };
    },
    onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
    stop: () => gateway.stop(),
  };
}
