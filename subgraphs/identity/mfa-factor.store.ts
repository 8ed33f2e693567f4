// The only code that reads and writes `mfa_factors`. Every read and write names the tenant, and
// the user where one is meant, so a factor id from another tenant finds nothing.
import type { MfaFactor } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { FactorKind, MfaFactorRecord, MfaFactorStore } from './mfa.types';

function toRecord(row: MfaFactor): MfaFactorRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    userId: row.userId,
    kind: row.kind as FactorKind,
    label: row.label,
    secret: row.secret,
    confirmedAt: row.confirmedAt,
    lastUsedStep: row.lastUsedStep === null ? null : Number(row.lastUsedStep),
    lastUsedAt: row.lastUsedAt,
    createdAt: row.createdAt,
  };
}

export function prismaMfaFactorStore(db: PrismaLike): MfaFactorStore {
  return {
    async create(tenantId, factor) {
      return toRecord(await db.mfaFactor.create({ data: { tenantId, ...factor } }));
    },
    async listForUser(tenantId, userId) {
      const rows = await db.mfaFactor.findMany({ where: { tenantId, userId }, orderBy: { createdAt: 'asc' } });
      return rows.map(toRecord);
    },
    async confirm(tenantId, factorId, step, at) {
      const { count } = await db.mfaFactor.updateMany({
        where: { tenantId, id: factorId, confirmedAt: null },
        data: { confirmedAt: at, lastUsedStep: BigInt(step), lastUsedAt: at },
      });
      return count === 1;
    },
    async recordUse(tenantId, factorId, step, at) {
      const { count } = await db.mfaFactor.updateMany({
        where: {
          tenantId,
          id: factorId,
          OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: BigInt(step) } }],
        },
        data: { lastUsedStep: BigInt(step), lastUsedAt: at },
      });
      return count === 1;
    },
    async remove(tenantId, userId, factorId) {
      return (await db.mfaFactor.deleteMany({ where: { tenantId, userId, id: factorId } })).count;
    },
    async touch(tenantId, factorId, at) {
      await db.mfaFactor.updateMany({ where: { tenantId, id: factorId }, data: { lastUsedAt: at } });
    },
    async rename(tenantId, userId, factorId, label) {
      return (
        (await db.mfaFactor.updateMany({ where: { tenantId, userId, id: factorId }, data: { label } })).count === 1
      );
    },
    async removePending(tenantId, userId, kind) {
      return (await db.mfaFactor.deleteMany({ where: { tenantId, userId, kind, confirmedAt: null } })).count;
    },
    async removeAllForUser(tenantId, userId) {
      return (await db.mfaFactor.deleteMany({ where: { tenantId, userId } })).count;
    },
  };
}
