// WebAuthn second factors (security keys and passkeys) with @simplewebauthn/server: registration
// and authentication ceremonies whose challenges are kept server-side (hashed, single use, short
// lived), several authenticators per person, and the signature counter an assertion must raise
// (a counter going backwards means a cloned authenticator: refused, and the failure audited by
// the sign-in). Plain domain code: the REST and GraphQL doors call it, with the JSON the browser's
// navigator.credentials produced.
import { createHash } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { AMR, hasSecondFactor } from '../../platform/auth/mfa';
import { MfaRequiredError } from '../../platform/auth/require-mfa';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { isUuid } from '../../platform/ids';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import type { IdentityStores, IdentityUnitOfWork, UserRecord } from './identity.types';
import { factorView, type ConfirmedFactor, type MfaService } from './mfa.service';
import type { WebauthnSettings } from './webauthn.config';
import type { WebauthnCeremony, WebauthnCredentialRecord } from './webauthn.types';

export interface WebauthnServiceDeps {
  stores: IdentityUnitOfWork;
  mfa: MfaService;
  settings: WebauthnSettings;
  now?: () => Date;
}

/** Why an assertion was refused (the `reason` of the auth_mfa_failed audit event). */
export type AssertionFailure =
  | 'unknown_credential'
  | 'challenge_unknown_or_used'
  | 'bad_origin'
  | 'bad_rp_id'
  | 'sign_count_regressed'
  | 'bad_assertion';

/** A registered key as a confirmed factor, with the amr a sign-in with it records. */
export type RegisteredKey = ConfirmedFactor & { amr: string[] };

export type AssertionCheck = { ok: true; amr: string[] } | { ok: false; reason: AssertionFailure };

const LABEL_MAX = 100;

/** The challenge a browser signed, read from its clientDataJSON; null when unreadable. */
export function signedChallengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  const raw = response.response?.clientDataJSON;
  if (typeof raw !== 'string') return null;
  try {
    const data = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge !== '' ? data.challenge : null;
  } catch {
    return null;
  }
}

export function hashChallenge(challenge: string): string {
  return createHash('sha256').update(challenge).digest('hex');
}

/** RFC 8176 methods of a WebAuthn sign-in: a synced passkey is a software key, a device-bound one hardware. */
export function amrOfCredential(c: Pick<WebauthnCredentialRecord, 'deviceType'>): string[] {
  return [c.deviceType === 'multiDevice' ? AMR.softwareKey : AMR.hardwareKey, AMR.userPresence];
}

function labelOf(label: string | null | undefined): string | null {
  const name = label?.trim() || null;
  if (name !== null && name.length > LABEL_MAX)
    throw InputError.of(['label'], `String should have at most ${LABEL_MAX} characters`, 'string_too_long');
  return name;
}

export class WebauthnService {
  private readonly now: () => Date;

  constructor(private readonly deps: WebauthnServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Registration options for a signed-in person. Someone who already has a factor adds another
   * only with a token from a second-factor sign-in (a password alone must not add a key).
   */
  async registrationOptionsForCaller(caller: Caller): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const auth = requireAuth(caller);
    const user = await this.deps.mfa.self(caller);
    const factors = await this.deps.mfa.confirmedFactors(this.deps.stores, user);
    if (factors.length > 0 && !hasSecondFactor(auth.amr)) throw new MfaRequiredError('add a second factor');
    return this.registrationOptions(user);
  }

  /** Creation options for navigator.credentials.create(); the challenge is remembered for this user. */
  async registrationOptions(user: UserRecord): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { settings, stores } = this.deps;
    const existing = await stores.webauthnCredentials.listForUser(user.tenantId, user.id);
    const options = await generateRegistrationOptions({
      rpName: settings.rpName,
      rpID: settings.rpId,
      userName: user.username,
      userDisplayName: user.email ?? user.username,
      userID: new TextEncoder().encode(user.id),
      timeout: settings.challengeSeconds * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.remember(stores, user, options.challenge, 'registration');
    return options;
  }

  /** Registers with the caller's own token (the REST/GraphQL door for a signed-in person). */
  async registerForCaller(
    caller: Caller,
    input: { credential: RegistrationResponseJSON; label?: string | null },
  ): Promise<RegisteredKey> {
    const user = await this.deps.mfa.self(caller);
    if (!(await this.takeChallenge(user, input.credential, 'registration')))
      throw InputError.of(['credential'], 'Unknown, used or expired challenge', 'value_error');
    return this.deps.stores.transaction((s) => this.register(s, caller, user, input));
  }

  /**
   * Verifies an attestation (its challenge already taken) against the origins and RP id, and keeps
   * the credential as a confirmed factor; the first factor comes with recovery codes. A response
   * that does not verify is an InputError (the enrolment sign-in counts it as a wrong answer).
   */
  async register(
    s: IdentityStores,
    caller: Caller,
    user: UserRecord,
    input: { credential: RegistrationResponseJSON; label?: string | null },
  ): Promise<RegisteredKey> {
    const label = labelOf(input.label);
    const { settings } = this.deps;
    const now = this.now();
    const challenge = signedChallengeOf(input.credential);
    if (challenge === null) throw InputError.of(['credential'], 'Unreadable clientDataJSON', 'value_error');
    const result = await verifyRegistrationResponse({
      response: input.credential,
      expectedChallenge: challenge,
      expectedOrigin: settings.origins,
      expectedRPID: settings.rpId,
      requireUserVerification: false,
    }).catch((err: unknown) => {
      throw InputError.of(['credential'], `The authenticator's response does not verify: ${messageOf(err)}`);
    });
    if (!result.verified) throw InputError.of(['credential'], "The authenticator's response does not verify");
    const info = result.registrationInfo;
    if (await s.webauthnCredentials.exists(user.tenantId, info.credential.id))
      throw new ConflictError('This authenticator is already registered');
    const factor = await s.mfaFactors.create(user.tenantId, { userId: user.id, kind: 'webauthn', label, secret: '' });
    await s.mfaFactors.confirm(user.tenantId, factor.id, 0, now);
    await s.webauthnCredentials.create(user.tenantId, {
      userId: user.id,
      factorId: factor.id,
      credentialId: info.credential.id,
      publicKey: info.credential.publicKey,
      signCount: info.credential.counter,
      transports: info.credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
    });
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.mfaFactorEnrolled,
        actor: user.username,
        data: {
          username: user.username,
          user_id: user.id,
          factor_id: factor.id,
          kind: 'webauthn',
          device_type: info.credentialDeviceType,
          backed_up: info.credentialBackedUp,
        },
      }),
    );
    const left = await s.recoveryCodes.countUnused(user.tenantId, user.id);
    const recoveryCodes = left === 0 ? await this.deps.mfa.replaceRecoveryCodes(s, caller, user) : null;
    return {
      factor: factorView({ ...factor, confirmedAt: now, lastUsedAt: now }),
      recoveryCodes,
      amr: amrOfCredential({ deviceType: info.credentialDeviceType }),
    };
  }

  /** Request options for navigator.credentials.get(): the user's own credentials only. */
  async authenticationOptions(user: UserRecord): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { settings, stores } = this.deps;
    const credentials = await stores.webauthnCredentials.listForUser(user.tenantId, user.id);
    if (credentials.length === 0) throw new NotFoundError('No security key or passkey is registered');
    const options = await generateAuthenticationOptions({
      rpID: settings.rpId,
      allowCredentials: credentials.map((c) => ({ id: c.credentialId, transports: c.transports })),
      userVerification: 'preferred',
      timeout: settings.challengeSeconds * 1000,
    });
    await this.remember(stores, user, options.challenge, 'authentication');
    return options;
  }

  /**
   * Uses up the user's remembered challenge that this response signed, whatever the response's
   * fate: a challenge answers once. Done outside the ceremony's transaction, so a refused answer
   * (rolled back there) does not give the challenge back.
   */
  async takeChallenge(
    user: UserRecord,
    credential: { response?: { clientDataJSON?: unknown } },
    ceremony: WebauthnCeremony,
  ): Promise<boolean> {
    const challenge = signedChallengeOf(credential);
    if (challenge === null) return false;
    const hash = hashChallenge(challenge);
    return (
      (await this.deps.stores.webauthnChallenges.take(user.tenantId, user.id, hash, ceremony, this.now())) !== null
    );
  }

  /**
   * Checks an assertion (its challenge already taken) against one of the user's own credentials:
   * signature, origin, RP id hash, and a signature counter that moved forward. Another user's
   * credential id is simply unknown here.
   */
  async checkAssertion(
    s: IdentityStores,
    user: UserRecord,
    credential: AuthenticationResponseJSON,
  ): Promise<AssertionCheck> {
    const { settings } = this.deps;
    const mine = (await s.webauthnCredentials.listForUser(user.tenantId, user.id)).find(
      (c) => c.credentialId === credential.id,
    );
    if (!mine) return { ok: false, reason: 'unknown_credential' };
    const challenge = signedChallengeOf(credential);
    if (challenge === null) return { ok: false, reason: 'bad_assertion' };
    let newCounter: number;
    try {
      const result = await verifyAuthenticationResponse({
        response: credential,
        expectedChallenge: challenge,
        expectedOrigin: settings.origins,
        expectedRPID: settings.rpId,
        credential: { id: mine.credentialId, publicKey: mine.publicKey, counter: mine.signCount },
        requireUserVerification: false,
      });
      if (!result.verified) return { ok: false, reason: 'bad_assertion' };
      newCounter = result.authenticationInfo.newCounter;
    } catch (err) {
      return { ok: false, reason: failureOf(messageOf(err)) };
    }
    // The conditional update also settles two concurrent assertions with one counter value.
    if (!(await s.webauthnCredentials.recordSignCount(user.tenantId, mine.id, newCounter)))
      return { ok: false, reason: 'sign_count_regressed' };
    await s.mfaFactors.touch(user.tenantId, mine.factorId, this.now());
    return { ok: true, amr: amrOfCredential(mine) };
  }

  /** Renames one of the caller's factors (any kind). */
  async renameFactor(caller: Caller, factorId: string, label: string | null): Promise<void> {
    const user = await this.deps.mfa.self(caller);
    const name = labelOf(label);
    if (!isUuid(factorId) || !(await this.deps.stores.mfaFactors.rename(user.tenantId, user.id, factorId, name)))
      throw new NotFoundError('Factor not found');
  }

  private async remember(s: IdentityStores, user: UserRecord, challenge: string, ceremony: WebauthnCeremony) {
    await s.webauthnChallenges.create({
      tenantId: user.tenantId,
      userId: user.id,
      challengeHash: hashChallenge(challenge),
      ceremony,
      expiresAt: new Date(this.now().getTime() + this.deps.settings.challengeSeconds * 1000),
    });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** @simplewebauthn/server reports refusals as messages; the audit keeps a stable reason. */
function failureOf(message: string): AssertionFailure {
  if (/counter value/i.test(message)) return 'sign_count_regressed';
  if (/origin/i.test(message)) return 'bad_origin';
  if (/RP ID/i.test(message)) return 'bad_rp_id';
  return 'bad_assertion';
}
