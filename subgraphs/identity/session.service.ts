// Sign-in sessions (refresh-token families): a person lists and ends their own; a tenant's admin
// (or a platform operator) lists and ends a user's. Ending a session revokes its refresh tokens;
// access tokens already issued run until they expire. Every revocation is audited.
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { isAdmin } from '../../platform/auth/auth-context';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { AuthenticationError, NotFoundError } from '../../platform/errors/domain-errors';
import { isUuid } from '../../platform/ids';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { readScopeOf, requireAdmin } from './access.policy';
import { IDENTITY_EVENTS } from './identity.audit';
import type { IdentityStores, IdentityUnitOfWork, UserRecord } from './identity.types';
import type { SessionRecord } from './mfa.types';

export interface SessionView extends SessionRecord {
  /** The session the caller's own token belongs to. */
  current: boolean;
}

export class SessionService {
  constructor(
    private readonly stores: IdentityUnitOfWork,
    private readonly access: TenantAccess,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The caller's sessions, or (admin) those of `userId` in a tenant the caller may manage. */
  async list(caller: Caller, userId?: string): Promise<SessionView[]> {
    const auth = requireAuth(caller);
    const user = await this.subject(this.stores, caller, userId, 'identity.sessions.list');
    const sessions = await this.stores.refreshTokens.listSessions(user.tenantId, user.id, this.now());
    const own = user.username === auth.username && user.tenantId === auth.tenantId;
    return sessions.map((s) => ({ ...s, current: own && s.id === auth.sid }));
  }

  /** Ends one session. Unknown ids and other users' sessions are the same 404. */
  async revoke(caller: Caller, sessionId: string, userId?: string): Promise<void> {
    const auth = requireAuth(caller);
    if (!isUuid(sessionId)) throw new NotFoundError('Session not found');
    await this.stores.transaction(async (s) => {
      const user = await this.subject(s, caller, userId, 'identity.sessions.revoke');
      const count = await s.refreshTokens.revokeUserFamily(user.tenantId, user.id, sessionId);
      if (count === 0) throw new NotFoundError('Session not found');
      await this.audit(s, caller, user, auth.username, { family_id: sessionId, revoked_count: count }, userId);
    });
  }

  /** Ends every session of the caller (or, admin, of `userId`); the number of tokens revoked. */
  async revokeAll(caller: Caller, userId?: string): Promise<number> {
    const auth = requireAuth(caller);
    return this.stores.transaction(async (s) => {
      const user = await this.subject(s, caller, userId, 'identity.sessions.revokeAll');
      const count = await s.refreshTokens.revokeAllForUser(user.tenantId, user.id);
      await this.audit(s, caller, user, auth.username, { revoked_count: count }, userId);
      return count;
    });
  }

  /** The user whose sessions are meant: the caller, or another user for an admin of their tenant. */
  private async subject(
    s: IdentityStores,
    caller: Caller,
    userId: string | undefined,
    action: string,
  ): Promise<UserRecord> {
    const auth = requireAuth(caller);
    if (userId === undefined) {
      const [me] = await s.users.findByUsernames(auth.tenantId, [auth.username]);
      if (!me) throw new AuthenticationError();
      return me;
    }
    requireAdmin(caller);
    if (!isUuid(userId)) throw new NotFoundError('User not found');
    const [user] = await s.users.findByIds(readScopeOf(auth), [userId]);
    if (!user) throw new NotFoundError('User not found');
    await this.access.resolve(caller, user.tenantId, ['userId'], action);
    return user;
  }

  private async audit(
    s: IdentityStores,
    caller: Caller,
    user: UserRecord,
    actor: string,
    data: Record<string, unknown>,
    userId: string | undefined,
  ): Promise<void> {
    const byAdmin = userId !== undefined && caller.auth !== undefined && isAdmin(caller.auth);
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.tokenRevoked,
        actor,
        data: {
          username: user.username,
          user_id: user.id,
          reason: byAdmin ? 'admin_revoked' : 'session_revoked',
          ...data,
        },
      }),
    );
  }
}
