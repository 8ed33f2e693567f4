// The second step of a sign-in. After a right password, a person with a confirmed factor gets a
// `verify` challenge; a person whose role the tenant's policy covers but who has no factor gets an
// `enrol` challenge (enrol an authenticator with it, and its first code completes the sign-in).
// Codes answering a challenge are throttled with the password (the same LoginThrottle key, so
// guessing codes locks the account as guessing passwords does) and every failure is audited.
import type { Caller } from '../../platform/auth/caller';
import { AMR } from '../../platform/auth/mfa';
import { AuthenticationError, InputError, RateLimitedError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { ENROLLABLE_KINDS, isSignInMethod, RECOVERY_CODE_METHOD, type SignInMethod } from './factor.registry';
import { IDENTITY_EVENTS } from './identity.audit';
import {
  ALL_TENANTS,
  type IdentityStores,
  type IdentityUnitOfWork,
  type TokenPair,
  type UserRecord,
} from './identity.types';
import { LoginThrottle } from './login.throttle';
import { hashChallengeToken, newChallengeToken, type MfaChallenge } from './mfa.challenge';
import type { MfaPolicyService } from './mfa-policy.service';
import type { MfaService, TotpEnrolment } from './mfa.service';
import type { ChallengePurpose, MfaChallengeRecord } from './mfa.types';
import type { SessionIssuer } from './session.issuer';
import { roleNamesOf } from './user.view';

export interface MfaSignInDeps {
  stores: IdentityUnitOfWork;
  mfa: MfaService;
  policy: MfaPolicyService;
  sessions: SessionIssuer;
  throttle: LoginThrottle;
  /** How long a challenge may be answered. */
  challengeSeconds: number;
  /** Wrong codes one challenge takes before it is used up (the account throttle still applies). */
  maxAttempts: number;
  now?: () => Date;
}

/** What login asks of the sign-in's second step: a challenge, or null when tokens may be issued now. */
export interface SecondFactorGate {
  challengeFor(s: IdentityStores, caller: Caller, user: UserRecord, amr: string[]): Promise<MfaChallenge | null>;
}

/** `counted`: a wrong answer (a failure to record), not a challenge someone else already used. */
type Answer<T> = { ok: true; value: T } | { ok: false; counted: boolean };

export class MfaSignInService implements SecondFactorGate {
  private readonly now: () => Date;

  constructor(private readonly deps: MfaSignInDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async challengeFor(s: IdentityStores, caller: Caller, user: UserRecord, amr: string[]): Promise<MfaChallenge | null> {
    const factors = await this.deps.mfa.confirmedFactors(s, user);
    let purpose: ChallengePurpose;
    let methods: string[];
    if (factors.length > 0) {
      purpose = 'verify';
      methods = [...new Set(factors.map((f) => f.kind))];
      if ((await s.recoveryCodes.countUnused(user.tenantId, user.id)) > 0) methods.push(RECOVERY_CODE_METHOD);
    } else {
      const required = await this.deps.policy.requiredRoles(s, user.tenantId);
      if (!roleNamesOf(user).some((r) => required.includes(r))) return null;
      purpose = 'enrol';
      methods = [...ENROLLABLE_KINDS];
    }
    const mfaToken = newChallengeToken();
    const now = this.now();
    await s.mfaChallenges.create({
      tenantId: user.tenantId,
      userId: user.id,
      tokenHash: hashChallengeToken(mfaToken),
      purpose,
      amr,
      expiresAt: new Date(now.getTime() + this.deps.challengeSeconds * 1000),
    });
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.mfaChallengeIssued,
        actor: user.username,
        data: { username: user.username, user_id: user.id, purpose, factors: methods },
      }),
    );
    return { mfaToken, purpose, factors: methods, expiresIn: this.deps.challengeSeconds };
  }

  /** Answers a `verify` challenge with a TOTP or a recovery code: the session's tokens (amr pwd + otp). */
  async verify(caller: Caller, input: { mfaToken: string; method?: string; code: string }): Promise<TokenPair> {
    const method = input.method ?? 'totp';
    if (!isSignInMethod(method) || method === 'webauthn')
      throw InputError.of(['method'], "Input should be 'totp' or 'recovery_code'", 'literal_error');
    const answer = await this.answer(caller, input.mfaToken, 'verify', method, async (s, user, challenge) => {
      const check = await this.deps.mfa.checkCode(s, caller, user, method, input.code);
      if (!check.ok) return { ok: false, reason: check.reason };
      const amr = [...new Set([...challenge.amr, check.amr])];
      return { ok: true, value: await this.complete(s, caller, user, amr, check.method) };
    });
    return answer;
  }

  /** Starts a TOTP enrolment with an `enrol` challenge (no access token yet). */
  async enrolStart(_caller: Caller, input: { mfaToken: string; label?: string | null }): Promise<TotpEnrolment> {
    const { challenge, user } = await this.open(input.mfaToken, 'enrol');
    if (challenge.consumedAt !== null) throw new AuthenticationError();
    return this.deps.mfa.startTotp(user, input.label);
  }

  /** Confirms that enrolment with its first code: the factor, recovery codes and the session's tokens. */
  async enrolConfirm(
    caller: Caller,
    input: { mfaToken: string; factorId: string; code: string },
  ): Promise<{ pair: TokenPair; recoveryCodes: string[] | null; factorId: string }> {
    return this.answer(caller, input.mfaToken, 'enrol', 'totp', async (s, user, challenge) => {
      const confirmed = await this.deps.mfa.confirmTotp(caller, user, input, s).catch((err: unknown) => {
        if (err instanceof InputError) return null; // a wrong code: counted like any other
        throw err;
      });
      if (!confirmed) return { ok: false, reason: 'bad_code' };
      const pair = await this.complete(s, caller, user, [...new Set([...challenge.amr, AMR.oneTimeCode])], 'totp');
      return { ok: true, value: { pair, recoveryCodes: confirmed.recoveryCodes, factorId: confirmed.factor.id } };
    });
  }

  /**
   * One answer to a challenge: refused while the account is locked, counted and audited when
   * wrong (the challenge is used up after maxAttempts), and the challenge consumed with the
   * session's start when right, in one transaction. (WebAuthn's answers use it too.)
   */
  async answer<T>(
    caller: Caller,
    mfaToken: string,
    purpose: ChallengePurpose,
    method: SignInMethod,
    work: (
      s: IdentityStores,
      user: UserRecord,
      challenge: MfaChallengeRecord,
    ) => Promise<{ ok: true; value: T } | { ok: false; reason: string }>,
  ): Promise<T> {
    const { challenge, user } = await this.open(mfaToken, purpose);
    const key = LoginThrottle.key(user.tenantId, user.username);
    const wait = await this.deps.throttle.retryAfterSeconds(key);
    if (wait > 0) throw new RateLimitedError('Too many failed logins; try again later', wait);
    let failure = 'bad_code';
    const outcome = await this.deps.stores
      .transaction(async (s): Promise<Answer<T>> => {
        const now = this.now();
        if (!(await s.mfaChallenges.consume(challenge.id, now))) return { ok: false, counted: false };
        const result = await work(s, user, challenge);
        if (!result.ok) {
          failure = result.reason;
          // Roll the consumption back: the failure is recorded outside this transaction.
          throw new WrongAnswer();
        }
        return { ok: true, value: result.value };
      })
      .catch((err: unknown): Answer<T> => {
        if (err instanceof WrongAnswer) return { ok: false, counted: true };
        throw err;
      });
    if (outcome.ok) {
      await this.deps.throttle.recordSuccess(key);
      return outcome.value;
    }
    if (outcome.counted) await this.recordFailure(caller, user, challenge, method, failure, key);
    throw new AuthenticationError();
  }

  /** The live challenge behind a token, and its user; any doubt is the same 401. */
  async open(
    mfaToken: string,
    purpose: ChallengePurpose,
  ): Promise<{ challenge: MfaChallengeRecord; user: UserRecord }> {
    const { stores } = this.deps;
    const challenge = await stores.mfaChallenges.findByHash(hashChallengeToken(mfaToken));
    if (!challenge || challenge.purpose !== purpose || challenge.consumedAt !== null) throw new AuthenticationError();
    if (challenge.expiresAt.getTime() <= this.now().getTime()) throw new AuthenticationError();
    // Holding the challenge token proves the password step for this user: like a refresh token.
    const [user] = await stores.users.findByIds(ALL_TENANTS, [challenge.userId]);
    if (!user || !user.isActive || user.tenantId !== challenge.tenantId) throw new AuthenticationError();
    return { challenge, user };
  }

  /** The sign-in's end once its challenge is answered: audited, and the session's tokens. */
  async complete(
    s: IdentityStores,
    caller: Caller,
    user: UserRecord,
    amr: string[],
    method: SignInMethod,
  ): Promise<TokenPair> {
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.mfaSucceeded,
        actor: user.username,
        data: { username: user.username, user_id: user.id, method },
      }),
    );
    return this.deps.sessions.start(s, caller, user, { amr, grant: 'password', method }, this.now());
  }

  private async recordFailure(
    caller: Caller,
    user: UserRecord,
    challenge: MfaChallengeRecord,
    method: SignInMethod,
    reason: string,
    key: string,
  ): Promise<void> {
    const { stores, throttle, maxAttempts } = this.deps;
    const locked = await throttle.recordFailure(key);
    const lockedFor = locked ? await throttle.retryAfterSeconds(key) : 0;
    const attempts = await stores.mfaChallenges.recordAttempt(challenge.id);
    // A challenge takes a few wrong codes; then the password must be given again.
    if (attempts >= maxAttempts) await stores.mfaChallenges.consume(challenge.id, this.now());
    await stores.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.mfaFailed,
        actor: user.username,
        data: {
          username: user.username,
          user_id: user.id,
          method,
          reason,
          attempts,
          ...(locked ? { locked_for_seconds: lockedFor } : {}),
        },
      }),
    );
  }
}

/** Thrown inside the answer's transaction to undo the challenge's consumption on a wrong code. */
class WrongAnswer extends Error {}
