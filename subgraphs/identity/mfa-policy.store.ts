// The only code that reads and writes `mfa_policies`: one row per tenant that set its own.
import type { MfaPolicy } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { MfaPolicyRecord, MfaPolicyStore } from './mfa.types';

function toRecord(row: MfaPolicy): MfaPolicyRecord {
  return {
    tenantId: row.tenantId,
    requiredRoles: row.requiredRoles,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

export function prismaMfaPolicyStore(db: PrismaLike): MfaPolicyStore {
  return {
    async get(tenantId) {
      const row = await db.mfaPolicy.findUnique({ where: { tenantId } });
      return row ? toRecord(row) : null;
    },
    async set(tenantId, requiredRoles, updatedBy) {
      const data = { requiredRoles: [...requiredRoles], updatedBy };
      return toRecord(await db.mfaPolicy.upsert({ where: { tenantId }, create: { tenantId, ...data }, update: data }));
    },
  };
}
