// User rules: who am I, admin creation of users and role assignment, tenant-scoped listings and
// entity lookups. A tenant's admin works only inside its tenant; a platform admin anywhere.
import { AuthenticationError, ConflictError, ForbiddenError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, IDENTITY_EVENTS } from './audit.events';
import { isPlatformAdmin, readScopeOf, requireAdmin, requireCaller, targetTenant } from './access.policy';
import { check, LIMITS, PATTERNS } from './identity.rules';
import { ALL_TENANTS, type CallContext, type IdentityUnitOfWork, type TenantScope, type UserView } from './identity.types';
import type { PasswordHasher } from './password.hasher';
import { toUserView } from './user.view';

export interface UserPage {
  users: UserView[];
  /** Opaque cursor for the next page, or null on the last page. */
  nextCursor: string | null;
}

export interface NewUserInput {
  username: string;
  password: string;
  email?: string | null;
  tenantId?: string;
  roles?: string[];
  isVerified?: boolean;
}

const DEFAULT_PAGE = 20;

export class UserService {
  constructor(
    private readonly stores: IdentityUnitOfWork,
    private readonly hasher: PasswordHasher,
    private readonly maxPageSize: number,
  ) {}

  /** The caller's own record, from the database (current roles, email). */
  async me(ctx: CallContext): Promise<UserView> {
    const auth = requireCaller(ctx);
    const [user] = await this.stores.users.findByUsernames(auth.tenantId, [auth.username]);
    if (!user || !user.isActive) throw new AuthenticationError();
    return toUserView(user);
  }

  async list(ctx: CallContext, page: { first?: number; after?: string | null; tenantId?: string }): Promise<UserPage> {
    const auth = requireAdmin(ctx);
    const tenantId = targetTenant(auth, page.tenantId);
    const limit = page.first ?? DEFAULT_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.maxPageSize) {
      throw InputError.of(['first'], `Input should be between 1 and ${this.maxPageSize}`, 'value_error');
    }
    const after = page.after ? decodeCursor(page.after) : undefined;
    const rows = await this.stores.users.list(tenantId, { limit: limit + 1, after });
    const users = rows.slice(0, limit).map(toUserView);
    return { users, nextCursor: rows.length > limit ? encodeCursor(users[users.length - 1]!.username) : null };
  }

  async create(ctx: CallContext, input: NewUserInput): Promise<UserView> {
    const auth = requireAdmin(ctx);
    const tenantId = targetTenant(auth, input.tenantId);
    const email = input.email ?? null;
    const roleNames = [...new Set(input.roles ?? ['user'])];
    const checker = check()
      .text('username', input.username, { max: LIMITS.username, pattern: PATTERNS.username })
      .text('password', input.password, { min: LIMITS.passwordMin, max: LIMITS.passwordMax });
    if (email !== null) checker.text('email', email, { max: LIMITS.email, pattern: PATTERNS.email });
    roleNames.forEach((r) => checker.notServiceRole('roles', r));
    checker.done();
    const passwordHash = await this.hasher.hash(input.password);
    return this.stores.transaction(async (s) => {
      if ((await s.tenants.findByIds(tenantId, [tenantId])).length === 0) throw new NotFoundError(`Tenant '${tenantId}' not found`);
      const roles = await s.roles.findByNames(roleNames);
      const missing = roleNames.filter((n) => !roles.some((r) => r.name === n));
      if (missing.length > 0) throw InputError.of(['roles'], `Unknown role(s): ${missing.join(', ')}`);
      const taken = await s.users.exists(input.username, email);
      if (taken.username) throw new ConflictError(`Username '${input.username}' already exists`);
      if (taken.email) throw new ConflictError('Email already registered');
      const user = await s.users.create({
        username: input.username,
        email,
        passwordHash,
        tenantId,
        isService: false,
        isVerified: input.isVerified ?? false,
        roleIds: roles.map((r) => r.id),
        assignedBy: await this.actorId(s.users, auth.tenantId, auth.username),
      });
      await s.outbox.append(auditEvent(ctx, { tenantId, type: IDENTITY_EVENTS.userCreated, actor: auth.username, data: { user_id: user.id, username: user.username, roles: roleNames } }));
      return toUserView(user);
    });
  }

  async assignRole(ctx: CallContext, input: { userId: string; roleName: string }): Promise<UserView> {
    const auth = requireAdmin(ctx);
    check().notServiceRole('role_name', input.roleName).done();
    if (!isUuid(input.userId)) throw new NotFoundError('User not found');
    return this.stores.transaction(async (s) => {
      const scope: TenantScope = isPlatformAdmin(auth) ? ALL_TENANTS : auth.tenantId;
      const [user] = await s.users.findByIds(scope, [input.userId]);
      if (!user) throw new NotFoundError('User not found');
      const [role] = await s.roles.findByNames([input.roleName]);
      if (!role) throw new NotFoundError(`Role '${input.roleName}' not found`);
      if (user.isService) throw new ForbiddenError('Service account roles are managed by service-account routes');
      const assigned = await s.users.assignRole(user.tenantId, user.id, role.id, await this.actorId(s.users, auth.tenantId, auth.username));
      if (!assigned) throw new ConflictError(`User already has role '${role.name}'`);
      await s.outbox.append(auditEvent(ctx, { tenantId: user.tenantId, type: IDENTITY_EVENTS.roleAssigned, actor: auth.username, data: { user_id: user.id, username: user.username, role_name: role.name } }));
      const [updated] = await s.users.findByIds(user.tenantId, [user.id]);
      return toUserView(updated!);
    });
  }

  /**
   * Entity lookups for federation references: batched, and scoped so a reference to another
   * tenant's user resolves to null unless the caller is a platform admin or a service.
   */
  async findByIds(ctx: CallContext, ids: readonly string[]): Promise<UserView[]> {
    const auth = requireCaller(ctx);
    const valid = ids.filter(isUuid);
    return (await this.stores.users.findByIds(readScopeOf(auth), valid)).map(toUserView);
  }

  async findByUsernames(ctx: CallContext, usernames: readonly string[]): Promise<UserView[]> {
    const auth = requireCaller(ctx);
    return (await this.stores.users.findByUsernames(readScopeOf(auth), usernames)).map(toUserView);
  }

  /** `assigned_by` is a user id; tokens carry the username, so look it up (null if gone). */
  private async actorId(users: IdentityUnitOfWork['users'], tenantId: string, username: string): Promise<string | null> {
    const [actor] = await users.findByUsernames(tenantId, [username]);
    return actor?.id ?? null;
  }
}


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Opaque page cursor: the last username of the page (listings are ordered by username). */
export function encodeCursor(username: string): string {
  return Buffer.from(`u:${username}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('u:') || text.length < 3) throw InputError.of(['after'], 'Invalid cursor', 'value_error');
  return text.slice(2);
}

