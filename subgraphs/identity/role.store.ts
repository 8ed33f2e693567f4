// The only code that reads and writes `roles`. A role is a platform role (tenant_id null: built-in,
// service-account and operator-made roles) or a tenant's own; a tenant sees both kinds, never
// another tenant's. Reads take the tenant whose view they return.
import type { Role } from '../../generated/prisma/client';
import { ConflictError } from '../../platform/errors/domain-errors';
import { isUniqueViolation, type PrismaLike } from '../../platform/db/prisma-like';
import { ALL_TENANTS, type RoleRecord, type RoleStore, type TenantScope } from './identity.types';

export function toRole(row: Role): RoleRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    scopes: row.scopes ?? [],
    createdAt: row.createdAt,
    tenantId: row.tenantId === PLATFORM ? null : row.tenantId,
  };
}

/** Platform roles and the tenant's own (everything for ALL_TENANTS; platform roles only for null). */
function visibleTo(scope: TenantScope | null) {
  if (scope === ALL_TENANTS) return {};
  return scope === null ? { tenantId: PLATFORM } : { tenantId: { in: [PLATFORM, scope] } };
}

/** How a platform role's tenant is stored (see prisma/schema/identity.prisma). */
const PLATFORM = '';

export function prismaRoleStore(db: PrismaLike): RoleStore {
  return {
    async findByNames(scope, names) {
      if (names.length === 0) return [];
      const rows = await db.role.findMany({ where: { name: { in: [...names] }, ...visibleTo(scope) } });
      return rows.map(toRole);
    },
    async list(scope) {
      return (await db.role.findMany({ where: visibleTo(scope), orderBy: { name: 'asc' } })).map(toRole);
    },
    async create(role) {
      try {
        return toRole(await db.role.create({ data: { ...role, tenantId: role.tenantId ?? PLATFORM } }));
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`Role '${role.name}' already exists`);
        throw err;
      }
    },
  };
}
