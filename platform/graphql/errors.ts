// GraphQL's door for domain errors: the same failures the REST handler maps to statuses become
// `extensions.code` values here. Every other error leaves as a message and a code only:
// - a DomainError keeps its message and code (and an InputError its issues);
// - a GraphQLError carrying one of the codes below keeps its message (parse and validation
//   errors, bad variables, unknown persisted queries: things the client did and can fix), and so
//   do Apollo's codeless 4xx request errors (as BAD_REQUEST);
// - a lost database is SERVICE_UNAVAILABLE with a fixed message;
// - anything else (Prisma call text, file paths, database error codes, graphql-js's own
//   failures) is 'Internal server error' with INTERNAL_SERVER_ERROR and nothing more.
// Apollo Server gives every formatted error a code (INTERNAL_SERVER_ERROR when none was set), so
// the code is read from the error as thrown, not from the formatted copy.
import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { isDatabaseUnavailable } from '../db/db-retry';
import { DomainError, InputError, type ErrorCode } from '../errors/domain-errors';

/** Codes whose message is written for the client: Apollo Server's request errors and ours. */
export const CLIENT_ERROR_CODES: ReadonlySet<string> = new Set<string>([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
  ...([
    'UNAUTHENTICATED',
    'FORBIDDEN',
    'NOT_FOUND',
    'CONFLICT',
    'BAD_USER_INPUT',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'RATE_LIMITED',
    'SERVICE_UNAVAILABLE',
    'BAD_GATEWAY',
    'GATEWAY_TIMEOUT',
  ] satisfies ErrorCode[]),
]);

export const INTERNAL_MESSAGE = 'Internal server error';

export interface ErrorFormatOptions {
  /** Development only: add the masked error's own message as `extensions.detail`. */
  exposeDetails?: boolean;
}

export function formatGraphQLError(
  formatted: GraphQLFormattedError,
  error: unknown,
  options: ErrorFormatOptions = {},
): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (original instanceof DomainError) {
    const extensions: Record<string, unknown> = { ...original.extensions, code: original.code };
    // Domain issues name domain fields, which are the GraphQL argument and input names; the
    // first one is also `extensions.field`, so a form can put the message beside its field.
    if (original instanceof InputError) {
      extensions.issues = original.issues;
      extensions.field = original.issues[0]?.loc.join('.');
    }
    return { message: original.message, locations: formatted.locations, path: formatted.path, extensions };
  }
  if (isDatabaseUnavailable(original)) {
    return {
      message: 'Database unavailable, retry shortly',
      path: formatted.path,
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    };
  }
  const code = original instanceof GraphQLError ? original.extensions?.code : undefined;
  if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code)) {
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  }
  if (isCodelessRequestError(original)) return { message: formatted.message, extensions: { code: 'BAD_REQUEST' } };
  const extensions: Record<string, unknown> = { code: 'INTERNAL_SERVER_ERROR' };
  if (options.exposeDetails) extensions.detail = original instanceof Error ? original.message : String(original);
  return { message: INTERNAL_MESSAGE, path: formatted.path, extensions };
}

/** Apollo Server's few request errors that say 4xx but carry no code (an APQ hash that does not
 * match its query, an unsupported APQ version): the client's mistakes, with messages for it. */
export function isCodelessRequestError(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.extensions?.code !== undefined) return false;
  const status = (error.extensions?.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
