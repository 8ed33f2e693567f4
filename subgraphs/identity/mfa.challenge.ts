// The answer to a password that was right when a second factor is still owed: not tokens but a
// short-lived, single-use challenge token, the factors that can answer it, and why. Thrown as an
// AuthenticationError subclass so a client that knows nothing of MFA still sees a 401; REST
// (rest-compat/identity/auth.routes.ts) and GraphQL (extensions) carry the challenge to those that do.
import { createHash, randomBytes } from 'node:crypto';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { ChallengePurpose } from './mfa.types';

export const MFA_REQUIRED = 'mfa_required';
export const MFA_ENROLMENT_REQUIRED = 'mfa_enrolment_required';

export interface MfaChallenge {
  /** Opaque; answer with POST /v1/auth/mfa/verify (or enrol with it). */
  mfaToken: string;
  purpose: ChallengePurpose;
  /** `verify`: methods that answer it (`totp`, `recovery_code`); `enrol`: kinds that may be enrolled. */
  factors: string[];
  expiresIn: number;
}

export class MfaChallengeError extends AuthenticationError {
  override readonly extensions: Readonly<Record<string, unknown>>;

  constructor(readonly challenge: MfaChallenge) {
    super(
      challenge.purpose === 'verify'
        ? 'Multi-factor authentication required: answer the challenge with a code from your authenticator'
        : 'Multi-factor enrolment required: your role needs a second factor; enrol an authenticator to sign in',
    );
    this.extensions = {
      reason: reasonOf(challenge.purpose),
      mfaToken: challenge.mfaToken,
      factors: challenge.factors,
      expiresIn: challenge.expiresIn,
    };
  }
}

export function reasonOf(purpose: ChallengePurpose): string {
  return purpose === 'verify' ? MFA_REQUIRED : MFA_ENROLMENT_REQUIRED;
}

/** 256 random bits; only the SHA-256 is stored (as for refresh tokens). */
export function newChallengeToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashChallengeToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
