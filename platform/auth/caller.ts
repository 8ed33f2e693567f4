// The one caller type every service's domain code takes first. Both doors build it from their
// request: REST with callerOf (platform/http/caller.ts), GraphQL with graphqlCaller
// (platform/graphql/caller-context.ts), graphql-ws from connectionParams.
import { AuthenticationError } from '../errors/domain-errors';
import type { AuthContext } from './auth-context';

export interface Caller {
  /** Present when a bearer token was verified. */
  auth?: AuthContext;
  /**
   * X-Tenant-ID as set by the gateway or router in front: the tenant a request acts in when it
   * names none otherwise. With a token, the tenant rule still applies to it (only operators and
   * services may name another tenant); anonymously (LEDGER_REQUIRE_AUTH/REQUIRE_AUTH false) the
   * network in front is trusted.
   */
  headerTenant?: string;
  /** Links this request's audit events and logs across services. */
  correlationId: string;
}

/** The verified caller, or 401. */
export function requireAuth(caller: Caller): AuthContext {
  if (!caller.auth) throw new AuthenticationError('Not authenticated');
  return caller.auth;
}
