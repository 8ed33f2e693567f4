// The only code that reads and writes `mfa_challenges`. Rows hold a SHA-256 of the challenge
// token, never the token; lookups are by that hash (holding the token is what scopes the read).
import type { MfaChallenge } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { ChallengePurpose, MfaChallengeRecord, MfaChallengeStore } from './mfa.types';

function toRecord(row: MfaChallenge): MfaChallengeRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    userId: row.userId,
    purpose: row.purpose as ChallengePurpose,
    amr: row.amr,
    attempts: row.attempts,
    expiresAt: row.expiresAt,
    consumedAt: row.consumedAt,
  };
}

export function prismaMfaChallengeStore(db: PrismaLike): MfaChallengeStore {
  return {
    async create(challenge) {
      return toRecord(await db.mfaChallenge.create({ data: challenge }));
    },
    async findByHash(tokenHash) {
      const row = await db.mfaChallenge.findUnique({ where: { tokenHash } });
      return row ? toRecord(row) : null;
    },
    async recordAttempt(id) {
      const row = await db.mfaChallenge.update({ where: { id }, data: { attempts: { increment: 1 } } });
      return row.attempts;
    },
    async consume(id, at) {
      const { count } = await db.mfaChallenge.updateMany({ where: { id, consumedAt: null }, data: { consumedAt: at } });
      return count === 1;
    },
  };
}
