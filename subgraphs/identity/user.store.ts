// The only code that reads and writes `users` and `user_roles`. Every read takes a tenant scope.
import type { Prisma } from '../../generated/prisma/client';
import { ConflictError } from '../../platform/errors/domain-errors';
import { isUniqueViolation, type PrismaLike } from '../../platform/db/prisma-like';
import { toRole } from './role.store';
import { ALL_TENANTS, type NewUser, type TenantScope, type UserRecord, type UserStore } from './identity.types';

const WITH_ROLES = { roles: { include: { role: true }, orderBy: { assignedAt: 'asc' } } } as const;
type UserRow = Prisma.UserGetPayload<{ include: typeof WITH_ROLES }>;

function tenantWhere(scope: TenantScope): Prisma.UserWhereInput {
  return scope === ALL_TENANTS ? {} : { tenantId: scope };
}

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    passwordHash: row.passwordHash,
    tenantId: row.tenantId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastLogin: row.lastLogin,
    isActive: row.isActive,
    isVerified: row.isVerified,
    isService: row.isService,
    roles: row.roles.map((ur) => toRole(ur.role)),
  };
}

export function prismaUserStore(db: PrismaLike): UserStore {
  return {
    async findForLogin(tenantId, username) {
      const row = await db.user.findFirst({ where: { tenantId, username }, include: WITH_ROLES });
      return row ? toUser(row) : null;
    },
    async findByIds(scope, ids) {
      if (ids.length === 0) return [];
      const rows = await db.user.findMany({
        where: { ...tenantWhere(scope), id: { in: [...ids] } },
        include: WITH_ROLES,
      });
      return rows.map(toUser);
    },
    async findByUsernames(scope, usernames) {
      if (usernames.length === 0) return [];
      const rows = await db.user.findMany({
        where: { ...tenantWhere(scope), username: { in: [...usernames] } },
        include: WITH_ROLES,
      });
      return rows.map(toUser);
    },
    async list(scope, page) {
      const rows = await db.user.findMany({
        where: { ...tenantWhere(scope), ...(page.after !== undefined ? { username: { gt: page.after } } : {}) },
        orderBy: { username: 'asc' },
        take: page.limit,
        include: WITH_ROLES,
      });
      return rows.map(toUser);
    },
    async exists(tenantId, username, email) {
      const rows = await db.user.findMany({
        where: { tenantId, OR: [{ username }, ...(email ? [{ email }] : [])] },
        select: { username: true, email: true },
      });
      return {
        username: rows.some((r) => r.username === username),
        email: email !== null && rows.some((r) => r.email === email),
      };
    },
    async create(user: NewUser) {
      try {
        const row = await db.user.create({
          data: {
            username: user.username,
            email: user.email,
            passwordHash: user.passwordHash,
            tenantId: user.tenantId,
            isService: user.isService,
            isVerified: user.isVerified,
            roles: { create: user.roleIds.map((roleId) => ({ roleId, assignedBy: user.assignedBy })) },
          },
          include: WITH_ROLES,
        });
        return toUser(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError('Username or email already exists');
        throw err;
      }
    },
    async findServiceAccount(clientId) {
      const row = await db.user.findFirst({ where: { username: clientId, isService: true }, include: WITH_ROLES });
      return row ? toUser(row) : null;
    },
    async recordLogin(tenantId, userId, at) {
      await db.user.updateMany({ where: { tenantId, id: userId }, data: { lastLogin: at } });
    },
    async assignRole(tenantId, userId, roleId, assignedBy) {
      const owned = await db.user.count({ where: { tenantId, id: userId } });
      if (owned === 0) return false;
      const existing = await db.userRole.findUnique({ where: { userId_roleId: { userId, roleId } } });
      if (existing) return false;
      try {
        await db.userRole.create({ data: { userId, roleId, assignedBy } });
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
  };
}
