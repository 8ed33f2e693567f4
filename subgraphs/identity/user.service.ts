// User rules: who am I, admin creation of users and role assignment, tenant-scoped listings and
// entity lookups. A tenant's admin works only inside its tenant; a platform admin anywhere.
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
} from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import { isPlatformOperator, PLATFORM_ADMIN_ROLE, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { readScopeOf, requireAdmin } from './access.policy';
import { check, LIMITS, PATTERNS } from './identity.rules';
import type { IdentityUnitOfWork, UserView } from './identity.types';
import type { PasswordHasher } from './password.hasher';
import { toUserView } from './user.view';
import { isUuid } from '../../platform/ids';
import { textCursor } from '../../platform/pagination/cursor';

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

/** Page cursors: the last username of the page (listings are ordered by username). */
export const usernameCursor = textCursor('u');

export class UserService {
  constructor(
    private readonly stores: IdentityUnitOfWork,
    private readonly hasher: PasswordHasher,
    private readonly maxPageSize: number,
    private readonly access: TenantAccess,
  ) {}

  /** The caller's own record, from the database (current roles, email). */
  async me(caller: Caller): Promise<UserView> {
    const auth = requireAuth(caller);
    const [user] = await this.stores.users.findByUsernames(auth.tenantId, [auth.username]);
    if (!user || !user.isActive) throw new AuthenticationError();
    return toUserView(user);
  }

  async list(caller: Caller, page: { first?: number; after?: string | null; tenantId?: string }): Promise<UserPage> {
    requireAdmin(caller);
    const tenantId = await this.access.resolve(caller, page.tenantId, ['tenantId'], 'identity.users.list');
    const limit = page.first ?? DEFAULT_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.maxPageSize) {
      throw InputError.of(['first'], `Input should be between 1 and ${this.maxPageSize}`, 'value_error');
    }
    const after = page.after ? usernameCursor.decode(page.after, 'after') : undefined;
    const rows = await this.stores.users.list(tenantId, { limit: limit + 1, after });
    const users = rows.slice(0, limit).map(toUserView);
    return { users, nextCursor: rows.length > limit ? usernameCursor.encode(users[users.length - 1]!.username) : null };
  }

  async create(caller: Caller, input: NewUserInput): Promise<UserView> {
    const auth = requireAdmin(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'identity.users.create');
    const email = input.email ?? null;
    const roleNames = [...new Set(input.roles ?? ['user'])];
    const checker = check()
      .text('username', input.username, { max: LIMITS.username, pattern: PATTERNS.username })
      .text('password', input.password, { min: LIMITS.passwordMin, max: LIMITS.passwordMax });
    if (email !== null) checker.text('email', email, { max: LIMITS.email, pattern: PATTERNS.email });
    roleNames.forEach((r) => checker.notServiceRole('roles', r));
    checker.done();
    if (roleNames.includes(PLATFORM_ADMIN_ROLE)) assertMayGrantOperator(auth);
    const passwordHash = await this.hasher.hash(input.password);
    return this.stores.transaction(async (s) => {
      if ((await s.tenants.findByIds(tenantId, [tenantId])).length === 0)
        throw new NotFoundError(`Tenant '${tenantId}' not found`);
      const roles = await s.roles.findByNames(tenantId, roleNames);
      const missing = roleNames.filter((n) => !roles.some((r) => r.name === n));
      if (missing.length > 0) throw InputError.of(['roles'], `Unknown role(s): ${missing.join(', ')}`);
      const taken = await s.users.exists(tenantId, input.username, email);
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
      await s.outbox.append(
        auditEvent(caller, {
          tenantId,
          type: IDENTITY_EVENTS.userCreated,
          actor: auth.username,
          data: { user_id: user.id, username: user.username, roles: roleNames },
        }),
      );
      return toUserView(user);
    });
  }

  async assignRole(caller: Caller, input: { userId: string; roleName: string }): Promise<UserView> {
    const auth = requireAdmin(caller);
    check().notServiceRole('role_name', input.roleName).done();
    if (!isUuid(input.userId)) throw new NotFoundError('User not found');
    return this.stores.transaction(async (s) => {
      const [user] = await s.users.findByIds(readScopeOf(auth), [input.userId]);
      if (!user) throw new NotFoundError('User not found');
      await this.access.resolve(caller, user.tenantId, ['userId'], 'identity.users.assignRole');
      if (input.roleName === PLATFORM_ADMIN_ROLE) assertMayGrantOperator(auth);
      const [role] = await s.roles.findByNames(user.tenantId, [input.roleName]);
      if (!role) throw new NotFoundError(`Role '${input.roleName}' not found`);
      if (user.isService) throw new ForbiddenError('Service account roles are managed by service-account routes');
      const assigned = await s.users.assignRole(
        user.tenantId,
        user.id,
        role.id,
        await this.actorId(s.users, auth.tenantId, auth.username),
      );
      if (!assigned) throw new ConflictError(`User already has role '${role.name}'`);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: user.tenantId,
          type: IDENTITY_EVENTS.roleAssigned,
          actor: auth.username,
          data: { user_id: user.id, username: user.username, role_name: role.name },
        }),
      );
      const [updated] = await s.users.findByIds(user.tenantId, [user.id]);
      return toUserView(updated!);
    });
  }

  /**
   * Entity lookups for federation references: batched, and scoped so a reference to another
   * tenant's user resolves to null unless the caller is a platform admin or a service.
   */
  async findByIds(caller: Caller, ids: readonly string[]): Promise<UserView[]> {
    const auth = requireAuth(caller);
    const valid = ids.filter(isUuid);
    return (await this.stores.users.findByIds(readScopeOf(auth), valid)).map(toUserView);
  }

  async findByUsernames(caller: Caller, usernames: readonly string[]): Promise<UserView[]> {
    const auth = requireAuth(caller);
    return (await this.stores.users.findByUsernames(readScopeOf(auth), usernames)).map(toUserView);
  }

  /** `assigned_by` is a user id; tokens carry the username, so look it up (null if gone). */
  private async actorId(
    users: IdentityUnitOfWork['users'],
    tenantId: string,
    username: string,
  ): Promise<string | null> {
    const [actor] = await users.findByUsernames(tenantId, [username]);
    return actor?.id ?? null;
  }
}

/** Only an operator makes another operator: a tenant's admin must not lift itself out of its tenant. */
function assertMayGrantOperator(auth: AuthContext): void {
  if (!isPlatformOperator(auth)) throw new ForbiddenError(`Only platform operators may grant '${PLATFORM_ADMIN_ROLE}'`);
}
