// Who must sign in with a second factor, per tenant and role. A tenant without its own policy
// follows the platform's (IDENTITY_MFA_REQUIRED_ROLES, PlatformConfig.auth.mfa); its admin may set
// one. Sensitive actions in other services keep the platform's policy as a floor
// (platform/auth/require-mfa.ts), whatever the tenant chose for sign-in.
import type { Caller } from '../../platform/auth/caller';
import type { MfaPolicy } from '../../platform/auth/mfa';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { InputError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { requireAdmin } from './access.policy';
import { IDENTITY_EVENTS } from './identity.audit';
import { LIMITS, PATTERNS } from './identity.rules';
import type { IdentityStores, IdentityUnitOfWork } from './identity.types';

export interface TenantMfaPolicy {
  tenantId: string;
  requiredRoles: string[];
  /** `tenant`: set by the tenant's admin; `platform`: the platform default applies. */
  source: 'tenant' | 'platform';
  updatedAt: Date | null;
  updatedBy: string | null;
}

const MAX_ROLES = 50;

export class MfaPolicyService {
  constructor(
    private readonly stores: IdentityUnitOfWork,
    private readonly platform: MfaPolicy,
    private readonly access: TenantAccess,
  ) {}

  /** The roles that need a second factor at sign-in in this tenant. */
  async requiredRoles(s: IdentityStores, tenantId: string): Promise<readonly string[]> {
    const row = await s.mfaPolicies.get(tenantId);
    return row ? row.requiredRoles : this.platform.requiredRoles;
  }

  async get(caller: Caller, tenantId?: string): Promise<TenantMfaPolicy> {
    requireAdmin(caller);
    const tenant = await this.access.resolve(caller, tenantId, ['tenantId'], 'identity.mfaPolicy.get');
    return this.view(tenant, this.stores);
  }

  async set(caller: Caller, input: { requiredRoles: string[]; tenantId?: string }): Promise<TenantMfaPolicy> {
    const auth = requireAdmin(caller);
    const tenant = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'identity.mfaPolicy.set');
    // Loosening who needs a second factor is itself a sensitive action.
    this.access.requireMfa(caller, 'change the MFA policy');
    const roles = [...new Set(input.requiredRoles.map((r) => r.trim()))];
    if (roles.length > MAX_ROLES)
      throw InputError.of(['requiredRoles'], `List should have at most ${MAX_ROLES} items`, 'too_long');
    roles.forEach((r, i) => {
      if (r === '' || r.length > LIMITS.roleName || !new RegExp(PATTERNS.roleName).test(r))
        throw InputError.of(['requiredRoles', i], 'Not a role name', 'value_error');
    });
    return this.stores.transaction(async (s) => {
      const before = await this.requiredRoles(s, tenant);
      await s.mfaPolicies.set(tenant, roles, auth.username);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: tenant,
          type: IDENTITY_EVENTS.mfaPolicyUpdated,
          actor: auth.username,
          data: { required_roles: roles, previous_required_roles: [...before] },
        }),
      );
      return this.view(tenant, s);
    });
  }

  private async view(tenantId: string, s: IdentityStores): Promise<TenantMfaPolicy> {
    const row = await s.mfaPolicies.get(tenantId);
    return row
      ? {
          tenantId,
          requiredRoles: row.requiredRoles,
          source: 'tenant',
          updatedAt: row.updatedAt,
          updatedBy: row.updatedBy,
        }
      : {
          tenantId,
          requiredRoles: [...this.platform.requiredRoles],
          source: 'platform',
          updatedAt: null,
          updatedBy: null,
        };
  }
}
