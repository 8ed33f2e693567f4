// The only code that reads and writes `refresh_tokens`. Rows hold a SHA-256 of the token, never
// the token. Lookups are by that hash: holding the token is what scopes the read.
import type { RefreshToken } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { RefreshTokenRecord, RefreshTokenStore } from './identity.types';
import type { SessionRecord } from './mfa.types';

/** Enough for any person's sessions; older rows of long-lived families are only history. */
const SESSION_SCAN_LIMIT = 2000;

function toRecord(row: RefreshToken): RefreshTokenRecord {
  return {
    id: row.id,
    userId: row.userId,
    tokenHash: row.tokenHash,
    familyId: row.familyId,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    revoked: row.revoked,
    usedAt: row.usedAt,
    amr: row.amr,
  };
}

export function prismaRefreshTokenStore(db: PrismaLike): RefreshTokenStore {
  return {
    async create(token) {
      return toRecord(await db.refreshToken.create({ data: token }));
    },
    async findByHash(tokenHash) {
      const row = await db.refreshToken.findUnique({ where: { tokenHash } });
      return row ? toRecord(row) : null;
    },
    async markUsed(id, at) {
      // Conditional update: of two concurrent refreshes with one token, exactly one wins.
      const { count } = await db.refreshToken.updateMany({
        where: { id, usedAt: null, revoked: false },
        data: { usedAt: at },
      });
      return count === 1;
    },
    async revokeFamily(familyId) {
      const { count } = await db.refreshToken.updateMany({
        where: { familyId, revoked: false },
        data: { revoked: true },
      });
      return count;
    },
    async listSessions(tenantId, userId, now) {
      // Unrevoked tokens of the user (the tenant through the user row), grouped by family: a family
      // is live while one of its tokens is unused and unexpired.
      const rows = await db.refreshToken.findMany({
        where: { userId, revoked: false, user: { tenantId } },
        orderBy: { createdAt: 'desc' },
        take: SESSION_SCAN_LIMIT,
      });
      const families = new Map<string, SessionRecord & { live: boolean }>();
      for (const row of rows) {
        const live = row.usedAt === null && row.expiresAt.getTime() > now.getTime();
        const f = families.get(row.familyId);
        if (!f) {
          families.set(row.familyId, {
            id: row.familyId,
            userId: row.userId,
            createdAt: row.createdAt,
            lastUsedAt: row.createdAt,
            expiresAt: row.expiresAt,
            amr: row.amr,
            live,
          });
          continue;
        }
        if (row.createdAt < f.createdAt) f.createdAt = row.createdAt;
        if (live) f.live = true;
      }
      return [...families.values()].filter((f) => f.live).map(({ live: _live, ...session }) => session);
    },
    async revokeUserFamily(tenantId, userId, familyId) {
      const { count } = await db.refreshToken.updateMany({
        where: { familyId, userId, revoked: false, user: { tenantId } },
        data: { revoked: true },
      });
      return count;
    },
    async revokeAllForUser(tenantId, userId) {
      const { count } = await db.refreshToken.updateMany({
        where: { userId, revoked: false, user: { tenantId } },
        data: { revoked: true },
      });
      return count;
    },
  };
}
