// Starts and continues sign-in sessions: an access token that says how the person signed in
// (amr, acr, sid) and a refresh token of the session's family, which remembers the amr so refreshes
// keep it. Password logins and completed second-factor challenges both end here.
import { randomUUID } from 'node:crypto';
import type { AccessTokens } from '../../platform/auth/jwt';
import type { Caller } from '../../platform/auth/caller';
import { acrOf } from '../../platform/auth/mfa';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import type { IdentityStores, TokenPair, UserRecord } from './identity.types';
import { hashRefreshToken, newRefreshToken } from './refresh-token.crypto';
import { roleNamesOf, scopesOf } from './user.view';

export class SessionIssuer {
  constructor(
    readonly tokens: AccessTokens,
    private readonly refreshTokenDays: number,
  ) {}

  /** A new session after a complete sign-in: login recorded, both audit events written with it. */
  async start(
    s: IdentityStores,
    caller: Caller,
    user: UserRecord,
    how: { amr: string[]; grant: string; method?: string },
    now: Date,
  ): Promise<TokenPair> {
    await s.users.recordLogin(user.tenantId, user.id, now);
    const familyId = randomUUID();
    const pair = await this.issuePair(s, user, familyId, how.amr, now);
    const signIn = { amr: how.amr, session_id: familyId, ...(how.method ? { mfa_method: how.method } : {}) };
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.loginSucceeded,
        actor: user.username,
        data: { username: user.username, user_id: user.id, grant: how.grant, ...signIn },
      }),
    );
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.tokenIssued,
        actor: user.username,
        data: { ...tokenEventData(user, this.tokens.expiresIn, how.grant), ...signIn },
      }),
    );
    return pair;
  }

  /** An access token and the family's next refresh token. */
  async issuePair(s: IdentityStores, user: UserRecord, familyId: string, amr: string[], now: Date): Promise<TokenPair> {
    const accessToken = await this.tokens.issue(
      { ...claimsOf(user), amr, acr: acrOf(amr), sid: familyId },
      now.getTime(),
    );
    const refreshToken = newRefreshToken();
    await s.refreshTokens.create({
      userId: user.id,
      tokenHash: hashRefreshToken(refreshToken),
      familyId,
      amr,
      expiresAt: new Date(now.getTime() + this.refreshTokenDays * 86_400_000),
    });
    return { accessToken, tokenType: 'bearer', expiresIn: this.tokens.expiresIn, refreshToken };
  }
}

export function claimsOf(user: UserRecord): { username: string; tenantId: string; roles: string[]; scopes: string[] } {
  return { username: user.username, tenantId: user.tenantId, roles: roleNamesOf(user), scopes: scopesOf(user.roles) };
}

export function tokenEventData(user: UserRecord, expiresIn: number, grant: string): Record<string, unknown> {
  return {
    username: user.username,
    user_id: user.id,
    grant,
    roles: roleNamesOf(user),
    scopes: scopesOf(user.roles),
    expires_in: expiresIn,
  };
}
