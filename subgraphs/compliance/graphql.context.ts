// Per-request GraphQL context: the caller (built by the kernel) and the compliance domain. The
// subgraph declares no entities, so no reference loaders; a framework's controls get their
// freshness from one query for the whole framework (resolvers.ts), not one per control.
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { ComplianceModule } from './compliance.module';

export interface ComplianceGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  compliance: ComplianceModule;
}

export function complianceContext(
  caller: Caller,
  compliance: ComplianceModule,
  requireAuth: boolean,
): ComplianceGraphQLContext {
  return { caller, requireAuth, compliance };
}

/** The caller, refusing anonymous callers when COMPLIANCE_REQUIRE_AUTH (or REQUIRE_AUTH) is on. */
export function callerOf(ctx: ComplianceGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
