// The only code that reads and writes `mfa_recovery_codes`: keyed hashes of single-use codes.
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { RecoveryCodeStore } from './mfa.types';

export function prismaRecoveryCodeStore(db: PrismaLike): RecoveryCodeStore {
  return {
    async replace(tenantId, userId, codeHashes) {
      await db.mfaRecoveryCode.deleteMany({ where: { tenantId, userId } });
      await db.mfaRecoveryCode.createMany({ data: codeHashes.map((codeHash) => ({ tenantId, userId, codeHash })) });
    },
    async consume(tenantId, userId, codeHash, at) {
      // Conditional update: a code works once, even for two concurrent sign-ins.
      const { count } = await db.mfaRecoveryCode.updateMany({
        where: { tenantId, userId, codeHash, usedAt: null },
        data: { usedAt: at },
      });
      return count === 1;
    },
    async countUnused(tenantId, userId) {
      return db.mfaRecoveryCode.count({ where: { tenantId, userId, usedAt: null } });
    },
    async removeAllForUser(tenantId, userId) {
      return (await db.mfaRecoveryCode.deleteMany({ where: { tenantId, userId } })).count;
    },
  };
}
