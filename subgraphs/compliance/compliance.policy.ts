// Who may do what in the compliance service, as pure functions of the verified caller. Reads
// need the `read` scope; changes need `write` and are refused to auditors whatever their scopes:
// an auditor's role is read-only by definition, so a tenant that gives its auditors a broader
// scope by mistake still cannot let them change the evidence they audit. Anonymous callers are
// the trusted network's (COMPLIANCE_REQUIRE_AUTH=false) and pass; certification always needs a
// person (a token), and never the pack's author (the rule-pack registry's rule, reused).
import { assertScope, hasRole, isAdmin, type AuthContext } from '../../platform/auth/auth-context';
import type { Caller } from '../../platform/auth/caller';
import { ForbiddenError } from '../../platform/errors/domain-errors';

/** The tenant role of auditors: every read, no change. */
export const AUDITOR_ROLE = 'auditor';

export function assertMayRead(caller: Caller): void {
  if (caller.auth) assertScope(caller.auth, 'read');
}

export function isAuditorOnly(auth: AuthContext): boolean {
  return hasRole(auth, AUDITOR_ROLE) && !isAdmin(auth);
}

export function assertMayWrite(caller: Caller): void {
  if (!caller.auth) return;
  if (isAuditorOnly(caller.auth)) throw new ForbiddenError('Auditors have read-only access to compliance data');
  assertScope(caller.auth, 'write');
}
