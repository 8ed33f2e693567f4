// First-start data: built-in roles, tenant `default` and (outside production) the two
// development users. Idempotent: existing rows are left exactly as they are, so a restart never
// resets a password an operator changed. Concurrent starts on one database race harmlessly:
// a unique violation on any step means another process created it.
import { ConflictError } from '../../platform/errors/domain-errors';
import type { IdentityConfig } from './identity.config';
import { ALL_TENANTS, DEFAULT_TENANT, type IdentityUnitOfWork } from './identity.types';
import type { PasswordHasher } from './password.hasher';

export const BUILT_IN_ROLES = [
  { name: 'admin', description: 'Administrative operations (all scopes)', scopes: ['read', 'write', 'admin'] },
  { name: 'user', description: 'View resources', scopes: ['read'] },
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

export async function seedIdentity(stores: IdentityUnitOfWork, hasher: PasswordHasher, config: Pick<IdentityConfig, 'seedDevUsers' | 'devAdmin' | 'devUser'>): Promise<SeedReport> {
  const created: string[] = [];
  const existingRoles = await stores.roles.findByNames(BUILT_IN_ROLES.map((r) => r.name));
  for (const role of BUILT_IN_ROLES) {
    if (existingRoles.some((r) => r.name === role.name)) continue;
    if (await ignoreConflict(() => stores.roles.create({ name: role.name, description: role.description, scopes: [...role.scopes] }))) created.push(`role:${role.name}`);
  }
  if ((await stores.tenants.findByIds(ALL_TENANTS, [DEFAULT_TENANT])).length === 0) {
    if (await ignoreConflict(() => stores.tenants.create({ id: DEFAULT_TENANT, name: 'Default tenant', metadata: {} }))) created.push(`tenant:${DEFAULT_TENANT}`);
  }
  if (!config.seedDevUsers) return { created };

  const roles = await stores.roles.findByNames(['admin', 'user']);
  const roleId = (name: string) => roles.find((r) => r.name === name)!.id;
  const devUsers = [
    { ...config.devAdmin, roleIds: [roleId('admin'), roleId('user')] },
    { ...config.devUser, roleIds: [roleId('user')] },
  ];
  for (const dev of devUsers) {
    const taken = await stores.users.exists(dev.username, null);
    if (taken.username) continue;
    const passwordHash = await hasher.hash(dev.password);
    const made = await ignoreConflict(() => stores.users.create({
      username: dev.username,
      email: null,
      passwordHash,
      tenantId: DEFAULT_TENANT,
      isService: false,
      isVerified: true,
      roleIds: dev.roleIds,
      assignedBy: null,
    }));
    if (made) created.push(`user:${dev.username}`);
  }
  return { created };
}
