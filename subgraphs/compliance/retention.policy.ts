// Who may change retention: a tenant admin (or a platform operator acting in the tenant). Policies,
// holds and erasures decide what the platform forgets, so the `write` scope alone is not enough;
// auditors read everything and change nothing (compliance.policy.ts). Anonymous callers are the
// trusted network's (COMPLIANCE_REQUIRE_AUTH=false) and pass.
import { isAdmin } from '../../platform/auth/auth-context';
import type { Caller } from '../../platform/auth/caller';
import { ForbiddenError } from '../../platform/errors/domain-errors';
import { assertMayWrite } from './compliance.policy';

export function assertMayGovernRetention(caller: Caller): void {
  assertMayWrite(caller);
  if (caller.auth && !caller.auth.isService && !isAdmin(caller.auth))
    throw new ForbiddenError('Retention policies, legal holds and erasures need a tenant admin');
}
