// The router's formatError (HTTP, and every error sent over graphql-ws): each error leaves as a
// message and a code, plus the few extensions written for clients (the measured cost of a refused
// query, an input error's issues, ...).
// - ApolloGateway's errors for a failed subgraph call carry the subgraph URL and raw response
//   body in `extensions.response` (Apollo Router's say SUBREQUEST_HTTP_ERROR): they become the
//   neutral error of http/subgraph-failure.ts, naming the subgraph only.
// - A code written for the client (platform/graphql/errors.ts's list, and the router's own
//   QUERY_TOO_DEEP, QUERY_TOO_COMPLEX, ...) keeps its message: the router's refusals, Apollo's
//   parse/validation errors, and the subgraphs' domain errors, which their own formatter has
//   already reduced to message and code.
// - Anything else, from the router or a subgraph, is 'Internal server error' with
//   INTERNAL_SERVER_ERROR; with GRAPHQL_EXPOSE_ERROR_DETAILS outside production the original
//   message rides along as `extensions.detail`.
import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { DomainError } from '../../platform/errors/domain-errors';
import {
  CLIENT_ERROR_CODES,
  formatGraphQLError,
  INTERNAL_MESSAGE,
  isCodelessRequestError,
  type ErrorFormatOptions,
} from '../../platform/graphql/errors';
import { subgraphFailure } from '../http/subgraph-failure';

/** Codes the router itself gives, with messages written for the client. */
const ROUTER_CODES = new Set([
  'QUERY_TOO_DEEP',
  'QUERY_TOO_COMPLEX',
  'SUBGRAPH_UNAVAILABLE',
  'SUBSCRIPTION_ENTITY_UNRESOLVABLE',
]);
/** Apollo Router's codes for a failed subgraph call (ApolloGateway marks them with extensions.response). */
const TRANSPORT_CODES = new Set(['SUBREQUEST_HTTP_ERROR', 'SUBREQUEST_MALFORMED_RESPONSE']);
/** Extensions that tell the client something useful and nothing about the inside. */
const CLIENT_EXTENSIONS = [
  'issues',
  'cost',
  'maxCost',
  'depth',
  'maxDepth',
  'aliases',
  'maxAliases',
  'field',
  'argument',
  'pageSize',
  'maxPageSize',
  'retryAfterSeconds',
];

/** Apollo Server's formatError for the router. */
export function formatRouterError(
  formatted: GraphQLFormattedError,
  error: unknown,
  options: ErrorFormatOptions = {},
): GraphQLFormattedError {
  // A domain error thrown inside the router's own pipeline: the kernel's mapping applies.
  if (unwrapResolverError(error) instanceof DomainError) return formatGraphQLError(formatted, error, options);
  // Apollo's APQ refusals (hash mismatch, version) say 400 but carry no code.
  if (isCodelessRequestError(error)) return { message: formatted.message, extensions: { code: 'BAD_REQUEST' } };
  return sanitizeError(formatted, options);
}

/** Any error, formatted or not (a GraphQLError, or one a subgraph sent as JSON), as the client may see it. */
export function sanitizeError(
  error: GraphQLFormattedError | { toJSON(): GraphQLFormattedError },
  options: ErrorFormatOptions = {},
): GraphQLFormattedError {
  const formatted: GraphQLFormattedError =
    'toJSON' in error && typeof error.toJSON === 'function' ? error.toJSON() : (error as GraphQLFormattedError);
  const ext = formatted.extensions ?? {};
  const code = typeof ext.code === 'string' ? ext.code : undefined;
  const subgraph =
    typeof ext.serviceName === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(ext.serviceName) ? ext.serviceName : undefined;
  const where = {
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
  };

  if (ext.response !== undefined || (code !== undefined && TRANSPORT_CODES.has(code))) {
    const status = (ext.response as { status?: unknown } | undefined)?.status;
    const neutral = subgraphFailure(subgraph, undefined, typeof status === 'number' ? status : 502);
    return { message: neutral.message, ...where, extensions: { code: neutral.extensions.code } };
  }
  if (code !== undefined && (CLIENT_ERROR_CODES.has(code) || ROUTER_CODES.has(code))) {
    const extensions: Record<string, unknown> = { code };
    for (const key of CLIENT_EXTENSIONS) if (ext[key] !== undefined) extensions[key] = ext[key];
    return { message: formatted.message, ...where, extensions };
  }
  const extensions: Record<string, unknown> = { code: 'INTERNAL_SERVER_ERROR' };
  if (options.exposeDetails)
    Object.assign(extensions, {
      detail: ext.detail ?? formatted.message,
      ...(code ? { originalCode: code } : {}),
      ...(subgraph ? { serviceName: subgraph } : {}),
    });
  return { message: INTERNAL_MESSAGE, ...where, extensions };
}
