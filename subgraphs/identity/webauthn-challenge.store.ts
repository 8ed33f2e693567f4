// The only code that reads and writes `webauthn_challenges`. Rows hold a SHA-256 of the challenge,
// never the challenge; taking one is a conditional update, so a challenge answers exactly once.
import type { WebauthnChallenge } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { WebauthnCeremony, WebauthnChallengeRecord, WebauthnChallengeStore } from './webauthn.types';

function toRecord(row: WebauthnChallenge): WebauthnChallengeRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    userId: row.userId,
    ceremony: row.ceremony as WebauthnCeremony,
    expiresAt: row.expiresAt,
    consumedAt: row.consumedAt,
  };
}

export function prismaWebauthnChallengeStore(db: PrismaLike): WebauthnChallengeStore {
  return {
    async create(challenge) {
      return toRecord(await db.webauthnChallenge.create({ data: challenge }));
    },
    async take(tenantId, userId, challengeHash, ceremony, at) {
      const where = { tenantId, userId, challengeHash, ceremony, consumedAt: null, expiresAt: { gt: at } };
      const { count } = await db.webauthnChallenge.updateMany({ where, data: { consumedAt: at } });
      if (count !== 1) return null;
      const row = await db.webauthnChallenge.findUnique({ where: { challengeHash } });
      return row ? toRecord(row) : null;
    },
  };
}
