// The second factors identity knows, by kind, and the sign-in methods that answer a challenge.
// `totp` (an authenticator app) and `webauthn` (a security key or passkey: amr `hwk`, or `swk` for a
// synced passkey, webauthn.service.ts) answer the same challenges. Recovery codes are a method, not a kind:
// they exist once any factor is enrolled.
import { AMR } from '../../platform/auth/mfa';
import type { FactorKind } from './mfa.types';

export interface FactorKindInfo {
  kind: FactorKind;
  /** The RFC 8176 method a sign-in with it adds to the token's amr. */
  amr: string;
  description: string;
  /** Whether identity can enrol it yet. */
  enrollable: boolean;
}

export const FACTOR_KINDS: Readonly<Record<FactorKind, FactorKindInfo>> = {
  totp: { kind: 'totp', amr: AMR.oneTimeCode, description: 'Authenticator app (TOTP, RFC 6238)', enrollable: true },
  webauthn: { kind: 'webauthn', amr: AMR.hardwareKey, description: 'Security key or passkey', enrollable: true },
};

/** What answers a challenge: a factor kind, or one of the recovery codes. */
export type SignInMethod = FactorKind | 'recovery_code';
export const RECOVERY_CODE_METHOD = 'recovery_code';

export const ENROLLABLE_KINDS: FactorKind[] = (Object.values(FACTOR_KINDS) as FactorKindInfo[])
  .filter((k) => k.enrollable)
  .map((k) => k.kind);

export function isSignInMethod(value: string): value is SignInMethod {
  return value === RECOVERY_CODE_METHOD || Object.hasOwn(FACTOR_KINDS, value);
}
