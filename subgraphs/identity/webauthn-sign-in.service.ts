// A security key or passkey in a sign-in's second step: the request options for a `verify`
// challenge (mfa_token), the assertion answering it, and registration with an `enrol` challenge
// (the first factor of someone whose role demands one), which completes the sign-in. The
// challenge's throttle, attempt count, audit and single use are MfaSignInService's.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Caller } from '../../platform/auth/caller';
import { InputError } from '../../platform/errors/domain-errors';
import type { TokenPair } from './identity.types';
import type { MfaSignInService } from './mfa-sign-in.service';
import type { WebauthnService } from './webauthn.service';

export class WebauthnSignInService {
  constructor(
    private readonly signIn: MfaSignInService,
    private readonly webauthn: WebauthnService,
  ) {}

  /** Options for a `verify` challenge: the challenge's user's credentials. */
  async authenticationOptions(input: { mfaToken: string }) {
    const { user } = await this.signIn.open(input.mfaToken, 'verify');
    return this.webauthn.authenticationOptions(user);
  }

  /** Options for an `enrol` challenge: registering the first factor before the first sign-in. */
  async registrationOptions(input: { mfaToken: string }) {
    const { user } = await this.signIn.open(input.mfaToken, 'enrol');
    return this.webauthn.registrationOptions(user);
  }

  /** Answers a `verify` challenge with an assertion: the session's tokens (amr pwd + hwk|swk + user). */
  async verify(
    caller: Caller,
    input: { mfaToken: string; credential: AuthenticationResponseJSON },
  ): Promise<TokenPair> {
    const { user } = await this.signIn.open(input.mfaToken, 'verify');
    // Taken before the answer's transaction: a refused answer rolls back, the challenge stays used.
    const fresh = await this.webauthn.takeChallenge(user, input.credential, 'authentication');
    return this.signIn.answer(caller, input.mfaToken, 'verify', 'webauthn', async (s, u, challenge) => {
      if (!fresh) return { ok: false, reason: 'challenge_unknown_or_used' };
      const check = await this.webauthn.checkAssertion(s, u, input.credential);
      if (!check.ok) return { ok: false, reason: check.reason };
      const amr = [...new Set([...challenge.amr, ...check.amr])];
      return { ok: true, value: await this.signIn.complete(s, caller, u, amr, 'webauthn') };
    });
  }

  /** Registers the first key with an `enrol` challenge: the factor, recovery codes and the session's tokens. */
  async enrol(
    caller: Caller,
    input: { mfaToken: string; credential: RegistrationResponseJSON; label?: string | null },
  ): Promise<{ pair: TokenPair; recoveryCodes: string[] | null; factorId: string }> {
    const { user: owner } = await this.signIn.open(input.mfaToken, 'enrol');
    const fresh = await this.webauthn.takeChallenge(owner, input.credential, 'registration');
    return this.signIn.answer(caller, input.mfaToken, 'enrol', 'webauthn', async (s, user, challenge) => {
      if (!fresh) return { ok: false, reason: 'challenge_unknown_or_used' };
      const registered = await this.webauthn.register(s, caller, user, input).catch((err: unknown) => {
        if (err instanceof InputError) return null; // counted like a wrong code
        throw err;
      });
      if (!registered) return { ok: false, reason: 'bad_attestation' };
      // Registration proves possession (and presence) of the new key.
      const amr = [...new Set([...challenge.amr, ...registered.amr])];
      const pair = await this.signIn.complete(s, caller, user, amr, 'webauthn');
      return { ok: true, value: { pair, recoveryCodes: registered.recoveryCodes, factorId: registered.factor.id } };
    });
  }
}
