// First-start data: built-in roles, tenant `default`, the platform operator when the environment
// names one, and (outside production) the two development users, neither of which crosses tenants. Idempotent: existing rows are left exactly as they are, so a restart never
// resets a password an operator changed. Concurrent starts on one database race harmlessly:
// a unique violation on any step means another process created it.
import { PLATFORM_ADMIN_ROLE } from '../../platform/auth/auth-context';
import { DEFAULT_TENANT } from '../../platform/auth/tenant.rule';
import { ConflictError } from '../../platform/errors/domain-errors';
import type { IdentityConfig } from './identity.config';
import { ALL_TENANTS, type IdentityUnitOfWork } from './identity.types';
import type { PasswordHasher } from './password.hasher';

export const BUILT_IN_ROLES = [
  { name: 'admin', description: 'Administrative operations (all scopes)', scopes: ['read', 'write', 'admin'] },
  { name: 'user', description: 'View resources', scopes: ['read'] },
  {
    name: PLATFORM_ADMIN_ROLE,
    description: 'Platform operator: acts in every tenant, each action audited in that tenant',
    scopes: ['read', 'write', 'admin'],
  },
] as const;

export interface SeedReport {
  created: string[];
}

async function ignoreConflict(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
}

async function ensureTenant(stores: IdentityUnitOfWork, id: string, name: string, created: string[]): Promise<void> {
  if ((await stores.tenants.findByIds(ALL_TENANTS, [id])).length > 0) return;
  if (await ignoreConflict(() => stores.tenants.create({ id, name, metadata: {} }))) created.push(`tenant:${id}`);
}

async function ensureUser(
  stores: IdentityUnitOfWork,
  hasher: PasswordHasher,
  created: string[],
  user: { username: string; password: string; tenantId: string; roleIds: string[] },
): Promise<void> {
  const taken = await stores.users.exists(user.tenantId, user.username, null);
  if (taken.username) return;
  const passwordHash = await hasher.hash(user.password);
  const made = await ignoreConflict(() =>
    stores.users.create({
      username: user.username,
      email: null,
      passwordHash,
      tenantId: user.tenantId,
      isService: false,
      isVerified: true,
      roleIds: user.roleIds,
      assignedBy: null,
    }),
  );
  if (made) created.push(`user:${user.username}`);
}

export async function seedIdentity(
  stores: IdentityUnitOfWork,
  hasher: PasswordHasher,
  config: Pick<IdentityConfig, 'seedDevUsers' | 'devAdmin' | 'devUser' | 'platformAdmin'>,
): Promise<SeedReport> {
  const created: string[] = [];
  const existingRoles = await stores.roles.findByNames(
    null,
    BUILT_IN_ROLES.map((r) => r.name),
  );
  for (const role of BUILT_IN_ROLES) {
    if (existingRoles.some((r) => r.name === role.name)) continue;
    if (
      await ignoreConflict(() =>
        stores.roles.create({
          name: role.name,
          description: role.description,
          scopes: [...role.scopes],
          tenantId: null,
        }),
      )
    )
      created.push(`role:${role.name}`);
  }
  await ensureTenant(stores, DEFAULT_TENANT, 'Default tenant', created);
  const roles = await stores.roles.findByNames(
    null,
    BUILT_IN_ROLES.map((r) => r.name),
  );
  const roleId = (name: string) => roles.find((r) => r.name === name)!.id;
  if (config.platformAdmin) {
    await ensureTenant(stores, config.platformAdmin.tenantId, 'Platform operators', created);
    await ensureUser(stores, hasher, created, { ...config.platformAdmin, roleIds: [roleId(PLATFORM_ADMIN_ROLE)] });
  }
  if (!config.seedDevUsers) return { created };
  await ensureUser(stores, hasher, created, {
    ...config.devAdmin,
    tenantId: DEFAULT_TENANT,
    roleIds: [roleId('admin'), roleId('user')],
  });
  await ensureUser(stores, hasher, created, { ...config.devUser, tenantId: DEFAULT_TENANT, roleIds: [roleId('user')] });
  return { created };
}
