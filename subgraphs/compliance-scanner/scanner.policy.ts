// Who may do what in the scanner, as pure functions of the verified caller. Reads need the `read`
// scope; changes need `write` and a person (a token: what is scanned, certified or waived is
// recorded under a name). Anonymous reads are the trusted network's (COMPLIANCE_SCANNER_REQUIRE_AUTH=false).
import { assertScope, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';

export function assertMayRead(caller: Caller, requireToken: boolean): void {
  if (requireToken) requireAuth(caller);
  if (caller.auth) assertScope(caller.auth, 'read');
}

export function assertMayWrite(caller: Caller): AuthContext {
  const auth = requireAuth(caller);
  assertScope(auth, 'write');
  return auth;
}
