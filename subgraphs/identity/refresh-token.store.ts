// The only code that reads and writes `refresh_tokens`. Rows hold a SHA-256 of the token, never
// the token. Lookups are by that hash: holding the token is what scopes the read.
import type { RefreshToken } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { RefreshTokenRecord, RefreshTokenStore } from './identity.types';

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
  };
}
