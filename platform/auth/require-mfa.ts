// Step-up for sensitive actions (certifying a pack, deciding an approval, an operator's action in
// another tenant): a caller holding a role of the MFA policy must present a token whose `amr` shows
// a second factor. Refusal is a 403 (GraphQL FORBIDDEN with extensions.reason "mfa_required"), so
// a client knows to sign in again with its second factor rather than to give up (RFC 9470's
// insufficient_user_authentication, in this platform's error shapes).
import { ForbiddenError } from '../errors/domain-errors';
import type { AuthContext } from './auth-context';
import { hasSecondFactor, type MfaPolicy } from './mfa';

export const MFA_REQUIRED_REASON = 'mfa_required';

export class MfaRequiredError extends ForbiddenError {
  override readonly extensions = { reason: MFA_REQUIRED_REASON };
  constructor(action: string) {
    super(`Multi-factor authentication required to ${action}: sign in again with your second factor`);
  }
}

/** Whether the policy demands a second factor of this caller for a sensitive action. */
export function mfaDemanded(auth: AuthContext, policy: MfaPolicy): boolean {
  // Service accounts are machines acting for the platform: no person to ask for a second factor.
  if (auth.isService) return false;
  return auth.roles.some((r) => policy.requiredRoles.includes(r));
}

/** Throws MfaRequiredError unless the caller signed in with a second factor or the policy does not cover it. */
export function requireMfa(auth: AuthContext | undefined, policy: MfaPolicy, action: string): void {
  if (!auth || !mfaDemanded(auth, policy)) return;
  if (!hasSecondFactor(auth.amr)) throw new MfaRequiredError(action);
}
