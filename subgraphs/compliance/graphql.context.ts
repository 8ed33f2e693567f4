// Per-request GraphQL context: the caller (built by the kernel) and the compliance domain. The
// subgraph declares no entities, so no reference loaders; a framework's controls get their
// freshness from one query for the whole framework (resolvers.ts), not one per control.
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { ComplianceModule } from './compliance.module';
import type { SignOffCaller } from './report-signoff.service';

export interface ComplianceGraphQLContext {
  /** With the bearer token: a report's sign-off workflow is started and decided with it. */
  caller: SignOffCaller;
  requireAuth: boolean;
  compliance: ComplianceModule;
}

export function complianceContext(
  caller: Caller,
  request: Pick<FastifyRequest, 'headers'>,
  compliance: ComplianceModule,
  requireAuth: boolean,
): ComplianceGraphQLContext {
  return { caller: { ...caller, token: bearerToken(request.headers.authorization) }, requireAuth, compliance };
}

/** The caller, refusing anonymous callers when COMPLIANCE_REQUIRE_AUTH (or REQUIRE_AUTH) is on. */
export function callerOf(ctx: ComplianceGraphQLContext): SignOffCaller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
