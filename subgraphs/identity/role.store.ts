// The only code that reads and writes `roles`. Roles are platform-wide (the spec's roles table
// has no tenant column), so these reads take no tenant scope.
import type { Role } from '../../generated/prisma/client';
import { ConflictError } from '../../platform/errors/domain-errors';
import { isUniqueViolation, type PrismaLike } from '../../platform/db/prisma-like';
import type { RoleRecord, RoleStore } from './identity.types';

export function toRole(row: Role): RoleRecord {
  return { id: row.id, name: row.name, description: row.description, scopes: row.scopes ?? [], createdAt: row.createdAt };
}

export function prismaRoleStore(db: PrismaLike): RoleStore {
  return {
    async findByNames(names) {
      if (names.length === 0) return [];
      const rows = await db.role.findMany({ where: { name: { in: [...names] } } });
      return rows.map(toRole);
    },
    async list() {
      return (await db.role.findMany({ orderBy: { name: 'asc' } })).map(toRole);
    },
    async create(role) {
      try {
        return toRole(await db.role.create({ data: role }));
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`Role '${role.name}' already exists`);
        throw err;
      }
    },
  };
}
