// The only code that reads and writes `tenants`.
import type { Prisma, Tenant } from '../../generated/prisma/client';
import { ConflictError } from '../../platform/errors/domain-errors';
import { isUniqueViolation, type PrismaLike } from '../../platform/db/prisma-like';
import { ALL_TENANTS, type TenantRecord, type TenantScope, type TenantStore } from './identity.types';

function toTenant(row: Tenant): TenantRecord {
  const metadata =
    row.metadata && typeof row.metadata === 'object' && !Array.isArray(row.metadata)
      ? (row.metadata as Record<string, unknown>)
      : {};
  return { id: row.id, name: row.name, createdAt: row.createdAt, isActive: row.isActive, metadata };
}

function scoped(scope: TenantScope): Prisma.TenantWhereInput {
  return scope === ALL_TENANTS ? {} : { id: scope };
}

export function prismaTenantStore(db: PrismaLike): TenantStore {
  return {
    async findByIds(scope, ids) {
      if (ids.length === 0) return [];
      const rows = await db.tenant.findMany({ where: { AND: [scoped(scope), { id: { in: [...ids] } }] } });
      return rows.map(toTenant);
    },
    async list(scope) {
      return (await db.tenant.findMany({ where: scoped(scope), orderBy: { id: 'asc' } })).map(toTenant);
    },
    async create(tenant) {
      try {
        return toTenant(
          await db.tenant.create({
            data: { id: tenant.id, name: tenant.name, metadata: tenant.metadata as Prisma.InputJsonObject },
          }),
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`Tenant '${tenant.id}' already exists`);
        throw err;
      }
    },
  };
}
