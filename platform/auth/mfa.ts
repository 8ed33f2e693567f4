// How a sign-in was authenticated, in the terms tokens carry: RFC 8176 `amr` method values and an
// `acr` assurance level after NIST SP 800-63B (aal1: one factor, aal2: two). Identity issues them;
// every service reads them (require-mfa.ts) without asking identity.

/**
 * RFC 8176 values this platform issues: a password, a one-time code (TOTP or a recovery code), a
 * WebAuthn key (`hwk` a device-bound one, `swk` a synced passkey) with its user-presence test.
 */
export const AMR = {
  password: 'pwd',
  oneTimeCode: 'otp',
  hardwareKey: 'hwk',
  softwareKey: 'swk',
  userPresence: 'user',
} as const;

/** The methods that count as a second factor on top of the password. */
const SECOND_FACTORS: ReadonlySet<string> = new Set([AMR.oneTimeCode, AMR.hardwareKey, AMR.softwareKey]);

export const ACR = { oneFactor: 'aal1', multiFactor: 'aal2' } as const;

export function hasSecondFactor(amr: readonly string[] | undefined): boolean {
  return amr !== undefined && amr.some((m) => SECOND_FACTORS.has(m));
}

/** The acr that goes with a set of methods. */
export function acrOf(amr: readonly string[]): string {
  return hasSecondFactor(amr) ? ACR.multiFactor : ACR.oneFactor;
}

/**
 * The roles whose holders must sign in with a second factor and may take sensitive actions only
 * with one: the default. Identity's per-tenant policy starts from it; services enforce it
 * on sensitive actions (the platform floor, docs/identity.md "Multi-factor sign-in").
 */
export const DEFAULT_MFA_REQUIRED_ROLES: readonly string[] = ['admin', 'reviewer', 'platform-admin'];

export interface MfaPolicy {
  /** Holders of any of these roles need a second factor for sensitive actions. Empty: nobody. */
  requiredRoles: readonly string[];
}

export const NO_MFA_POLICY: MfaPolicy = { requiredRoles: [] };
