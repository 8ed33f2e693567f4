// GraphQL's door for domain errors: the same failures the REST handler maps to statuses become
// `extensions.code` values here. Unexpected errors are logged and masked.
import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { isDatabaseUnavailable } from '../db/db-retry';
import { DomainError, InputError } from '../errors/domain-errors';

export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (original instanceof DomainError) {
    const extensions: Record<string, unknown> = { code: original.code };
    // Domain issues name domain fields, which are the GraphQL argument and input names; the
    // first one is also `extensions.field`, so a form can put the message beside its field.
    if (original instanceof InputError) {
      extensions.issues = original.issues;
      extensions.field = original.issues[0]?.loc.join('.');
    }
    return { message: original.message, locations: formatted.locations, path: formatted.path, extensions };
  }
  if (original instanceof GraphQLError || formatted.extensions?.code) return formatted;
  if (isDatabaseUnavailable(original)) {
    return { message: 'Database unavailable, retry shortly', path: formatted.path, extensions: { code: 'SERVICE_UNAVAILABLE' } };
  }
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

