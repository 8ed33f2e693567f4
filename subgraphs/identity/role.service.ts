// Role rules: any admin may create a role (spec: `POST /v1/roles` needs role admin), but a
// tenant's admin creates roles of its own tenant only, which no other tenant sees or can assign;
// platform roles (the built-in ones, service-account roles, and those an operator creates without
// naming a tenant) are visible to every tenant. The `service:` namespace is kept for service
// accounts, and a tenant role cannot take a platform role's name.
import { ConflictError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { isPlatformOperator } from '../../platform/auth/auth-context';
import { readScopeOf, requireAdmin } from './access.policy';
import { SERVICE_ROLE_PREFIX } from '../../platform/auth/jwt';
import { check, LIMITS, PATTERNS } from './identity.rules';
import { ALL_TENANTS, type IdentityUnitOfWork, type RoleRecord } from './identity.types';

export class RoleService {
  constructor(
    private readonly stores: IdentityUnitOfWork,
    private readonly access: TenantAccess,
  ) {}

  /** Platform roles and the caller's tenant's; service-account roles only to platform operators. */
  async list(caller: Caller): Promise<RoleRecord[]> {
    const auth = requireAuth(caller);
    const roles = await this.stores.roles.list(readScopeOf(auth));
    return isPlatformOperator(auth) ? roles : roles.filter((r) => !r.name.startsWith(SERVICE_ROLE_PREFIX));
  }

  async create(
    caller: Caller,
    input: { name: string; scopes?: string[]; description?: string | null; tenantId?: string },
  ): Promise<RoleRecord> {
    const auth = requireAdmin(caller);
    const scopes = [...new Set(input.scopes ?? [])];
    check()
      .text('role_name', input.name, { max: LIMITS.roleName, pattern: PATTERNS.roleName })
      .notServiceRole('role_name', input.name)
      .scopes('scopes', scopes)
      .done();
    if (input.description != null)
      check().text('description', input.description, { min: 0, max: LIMITS.description }).done();
    // An operator naming no tenant makes a platform role; everyone else a role of their tenant.
    const tenantId =
      isPlatformOperator(auth) && input.tenantId === undefined
        ? null
        : await this.access.resolve(caller, input.tenantId, ['tenantId'], 'identity.roles.create');
    return this.stores.transaction(async (s) => {
      // A new platform role may not shadow any tenant's; a tenant role neither a platform one nor its tenant's.
      if ((await s.roles.findByNames(tenantId ?? ALL_TENANTS, [input.name])).length > 0)
        throw new ConflictError(`Role '${input.name}' already exists`);
      const role = await s.roles.create({ name: input.name, description: input.description ?? null, scopes, tenantId });
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: tenantId ?? auth.tenantId,
          type: IDENTITY_EVENTS.roleCreated,
          actor: auth.username,
          data: { role_name: role.name, scopes: role.scopes, scope: tenantId === null ? 'platform' : 'tenant' },
        }),
      );
      return role;
    });
  }
}
