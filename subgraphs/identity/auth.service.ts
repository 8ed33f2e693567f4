// Authentication rules: password logins, refresh-token rotation with reuse detection, logout,
// and the client-credentials grant for service accounts. Framework-free: REST routes and GraphQL
// resolvers both call these methods. A right password ends in tokens, or, when a second factor is
// owed (mfa-sign-in.service.ts), in an MfaChallengeError carrying the challenge.
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Caller } from '../../platform/auth/caller';
import { DEFAULT_TENANT } from '../../platform/auth/tenant.rule';
import type { AccessTokens } from '../../platform/auth/jwt';
import { AMR } from '../../platform/auth/mfa';
import { AuthenticationError, RateLimitedError } from '../../platform/errors/domain-errors';
import { LoginThrottle } from './login.throttle';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import { ALL_TENANTS, type IdentityUnitOfWork, type ServiceToken, type TokenPair } from './identity.types';
import { MfaChallengeError, type MfaChallenge } from './mfa.challenge';
import type { SecondFactorGate } from './mfa-sign-in.service';
import type { PasswordHasher } from './password.hasher';
import { hashRefreshToken } from './refresh-token.crypto';
import { claimsOf, SessionIssuer, tokenEventData } from './session.issuer';
import { scopesOf } from './user.view';

export interface AuthServiceDeps {
  stores: IdentityUnitOfWork;
  hasher: PasswordHasher;
  tokens: AccessTokens;
  /** Verifies access tokens (the bounded cache in front of `tokens`). */
  verifier: TokenAuthenticator;
  refreshTokenDays: number;
  /** Backoff per tenant and username (and per client id) after repeated failures. */
  throttle: LoginThrottle;
  now?: () => Date;
}

type FailureReason =
  | 'unknown_user'
  | 'bad_credentials'
  | 'inactive_user'
  | 'inactive_tenant'
  | 'not_a_person'
  | 'not_a_service'
  | 'malformed_request';

/** How a login whose username could not be read appears in the audit trail. */
export const MALFORMED_USERNAME = '(unreadable)';

type RefreshOutcome = { ok: true; pair: TokenPair } | { ok: false };

export class AuthService {
  private readonly now: () => Date;
  readonly sessions: SessionIssuer;
  /** Decides whether a right password still owes a second factor; unset: never (unit tests of the password step). */
  private secondFactor: SecondFactorGate | undefined;

  constructor(private readonly deps: AuthServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.sessions = new SessionIssuer(deps.tokens, deps.refreshTokenDays);
  }

  /** The sign-in's second step is built on this service's sessions, so it is attached after construction. */
  useSecondFactor(gate: SecondFactorGate): void {
    this.secondFactor = gate;
  }

  /**
   * Password grant and JSON login. Every failure is the same AuthenticationError; a right password
   * that owes a second factor is an MfaChallengeError (also a 401 to clients unaware of MFA).
   */
  async login(caller: Caller, input: { username: string; password: string; tenantId: string }): Promise<TokenPair> {
    const { stores, hasher } = this.deps;
    const key = LoginThrottle.key(input.tenantId, input.username);
    await this.refuseWhileLocked(key);
    const [user, tenants] = await Promise.all([
      stores.users.findForLogin(input.tenantId, input.username),
      stores.tenants.findByIds(ALL_TENANTS, [input.tenantId]),
    ]);
    const tenant = tenants[0];
    // Hash in every branch so an unknown user costs what a wrong password costs.
    const passwordOk = user
      ? await hasher.verify(input.password, user.passwordHash)
      : (await hasher.verifyDummy(input.password), false);
    const reason: FailureReason | null = !user
      ? 'unknown_user'
      : !passwordOk
        ? 'bad_credentials'
        : !user.isActive
          ? 'inactive_user'
          : !tenant?.isActive
            ? 'inactive_tenant'
            : user.isService
              ? 'not_a_person'
              : null;
    if (reason !== null || !user) {
      await this.recordFailure(caller, key, {
        tenantId: tenant ? tenant.id : DEFAULT_TENANT,
        requestedTenant: input.tenantId,
        username: input.username,
        grant: 'password',
        reason: reason ?? 'unknown_user',
      });
      throw new AuthenticationError();
    }
    const amr = [AMR.password];
    const outcome = await stores.transaction(async (s): Promise<{ pair: TokenPair } | { challenge: MfaChallenge }> => {
      const challenge = await this.secondFactor?.challengeFor(s, caller, user, amr);
      if (challenge) return { challenge };
      return { pair: await this.sessions.start(s, caller, user, { amr, grant: 'password' }, this.now()) };
    });
    // The throttle's count stays until the second factor is answered: a right password does not
    // buy fresh attempts at the code.
    if ('challenge' in outcome) throw new MfaChallengeError(outcome.challenge);
    await this.deps.throttle.recordSuccess(key);
    return outcome.pair;
  }

  /** Rotates a refresh token. A token that was already rotated revokes its whole family. */
  async refresh(caller: Caller, refreshToken: string): Promise<TokenPair> {
    const outcome = await this.deps.stores.transaction(async (s): Promise<RefreshOutcome> => {
      const now = this.now();
      const record = await s.refreshTokens.findByHash(hashRefreshToken(refreshToken));
      if (!record) return { ok: false };
      const [user] = await s.users.findByIds(ALL_TENANTS, [record.userId]);
      if (!user) return { ok: false };
      if (record.revoked) return { ok: false };
      const replayed = async (): Promise<RefreshOutcome> => {
        // Replay of a rotated token: whoever holds the family may be an attacker, so end it.
        const count = await s.refreshTokens.revokeFamily(record.familyId);
        await s.outbox.append(
          auditEvent(caller, {
            tenantId: user.tenantId,
            type: IDENTITY_EVENTS.tokenRevoked,
            actor: user.username,
            data: {
              username: user.username,
              family_id: record.familyId,
              reason: 'reuse_detected',
              revoked_count: count,
            },
          }),
        );
        return { ok: false };
      };
      if (record.usedAt !== null) return replayed();
      if (record.expiresAt.getTime() <= now.getTime() || !user.isActive) return { ok: false };
      if (!(await s.refreshTokens.markUsed(record.id, now))) return replayed();
      const [tenant] = await s.tenants.findByIds(user.tenantId, [user.tenantId]);
      if (!tenant?.isActive) return { ok: false };
      const pair = await this.sessions.issuePair(s, user, record.familyId, record.amr, now);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: user.tenantId,
          type: IDENTITY_EVENTS.tokenRefreshed,
          actor: user.username,
          data: { ...tokenEventData(user, this.deps.tokens.expiresIn, 'refresh_token'), family_id: record.familyId },
        }),
      );
      return { ok: true, pair };
    });
    // Thrown after the transaction so a reuse's revocation commits.
    if (!outcome.ok) throw new AuthenticationError();
    return outcome.pair;
  }

  /** Logout: revokes the token's family. Unknown tokens are accepted silently (RFC 7009 §2.2). */
  async revoke(caller: Caller, refreshToken: string): Promise<void> {
    await this.deps.stores.transaction(async (s) => {
      const record = await s.refreshTokens.findByHash(hashRefreshToken(refreshToken));
      if (!record) return;
      const count = await s.refreshTokens.revokeFamily(record.familyId);
      const [user] = await s.users.findByIds(ALL_TENANTS, [record.userId]);
      if (count > 0 && user) {
        await s.outbox.append(
          auditEvent(caller, {
            tenantId: user.tenantId,
            type: IDENTITY_EVENTS.tokenRevoked,
            actor: user.username,
            data: { username: user.username, family_id: record.familyId, reason: 'logout', revoked_count: count },
          }),
        );
      }
    });
  }

  /** Client-credentials grant for service accounts: an access token, no refresh token (RFC 6749 §4.4.3). */
  async serviceToken(caller: Caller, input: { clientId: string; clientSecret: string }): Promise<ServiceToken> {
    const { stores, hasher } = this.deps;
    const key = LoginThrottle.key('service-account', input.clientId);
    await this.refuseWhileLocked(key);
    // client_id names one service account platform-wide; the secret is what proves the caller.
    const account = await stores.users.findServiceAccount(input.clientId);
    const secretOk = account
      ? await hasher.verify(input.clientSecret, account.passwordHash)
      : (await hasher.verifyDummy(input.clientSecret), false);
    const reason: FailureReason | null = !account
      ? 'unknown_user'
      : !secretOk
        ? 'bad_credentials'
        : !account.isActive
          ? 'inactive_user'
          : !account.isService
            ? 'not_a_service'
            : null;
    if (reason !== null || !account) {
      await this.recordFailure(caller, key, {
        tenantId: account?.tenantId ?? DEFAULT_TENANT,
        username: input.clientId,
        grant: 'client_credentials',
        reason: reason ?? 'unknown_user',
      });
      throw new AuthenticationError();
    }
    await this.deps.throttle.recordSuccess(key);
    return stores.transaction(async (s) => {
      const now = this.now();
      await s.users.recordLogin(account.tenantId, account.id, now);
      const accessToken = await this.deps.tokens.issue(claimsOf(account), now.getTime());
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: account.tenantId,
          type: IDENTITY_EVENTS.serviceTokenIssued,
          actor: account.username,
          data: tokenEventData(account, this.deps.tokens.expiresIn, 'client_credentials'),
        }),
      );
      return {
        accessToken,
        tokenType: 'bearer',
        expiresIn: this.deps.tokens.expiresIn,
        scopes: scopesOf(account.roles),
      };
    });
  }

  /** Verifies an access token from its claims alone (no database: the claims carry roles and scopes). */
  verify(token: string): Promise<AuthContext> {
    return this.deps.verifier.authenticate(token);
  }

  /**
   * A login request too malformed to name an account (NUL or a lone surrogate in the username,
   * unreadable JSON): still a failed login, audited in the default tenant under a placeholder
   * name, and throttled like any account so a flood of them cannot bloat the chain.
   */
  async recordMalformedLogin(caller: Caller, grant: string): Promise<void> {
    const key = LoginThrottle.key(DEFAULT_TENANT, '\u0001malformed');
    if ((await this.deps.throttle.retryAfterSeconds(key)) > 0) return;
    await this.recordFailure(caller, key, {
      tenantId: DEFAULT_TENANT,
      username: MALFORMED_USERNAME,
      grant,
      reason: 'malformed_request',
    });
  }

  /**
   * A locked account is refused before any password hash or audit event: a flood against one
   * account costs neither CPU nor the tenant's chain. The lockout itself is audited (below).
   */
  private async refuseWhileLocked(key: string): Promise<void> {
    const wait = await this.deps.throttle.retryAfterSeconds(key);
    if (wait > 0) throw new RateLimitedError('Too many failed logins; try again later', wait);
  }

  private async recordFailure(
    caller: Caller,
    key: string,
    f: { tenantId: string; requestedTenant?: string; username: string; grant: string; reason: FailureReason },
  ): Promise<void> {
    const locked = await this.deps.throttle.recordFailure(key);
    const lockedFor = locked ? await this.deps.throttle.retryAfterSeconds(key) : 0;
    // No change to record it with, so the event is written alone.
    await this.deps.stores.outbox.append(
      auditEvent(caller, {
        tenantId: f.tenantId,
        type: IDENTITY_EVENTS.loginFailed,
        actor: f.username,
        data: {
          username: f.username,
          grant: f.grant,
          reason: f.reason,
          ...(f.requestedTenant !== undefined && f.requestedTenant !== f.tenantId
            ? { requested_tenant_id: f.requestedTenant }
            : {}),
          ...(locked ? { locked_for_seconds: lockedFor } : {}),
        },
      }),
    );
  }
}
