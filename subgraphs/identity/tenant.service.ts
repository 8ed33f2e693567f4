// Tenant rules: platform operators create tenants and see all of them; a tenant's admin sees its own.
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { readScopeOf, requireAdmin, requirePlatformOperator } from './access.policy';
import { ConflictError } from '../../platform/errors/domain-errors';
import { check, LIMITS, PATTERNS } from './identity.rules';
import { ALL_TENANTS, type IdentityUnitOfWork, type TenantRecord } from './identity.types';

export class TenantService {
  constructor(private readonly stores: IdentityUnitOfWork) {}

  async list(caller: Caller): Promise<TenantRecord[]> {
    const auth = requireAdmin(caller);
    return this.stores.tenants.list(readScopeOf(auth));
  }

  /** Entity lookups for federation references, scoped like user lookups. */
  async findByIds(caller: Caller, ids: readonly string[]): Promise<TenantRecord[]> {
    const auth = requireAuth(caller);
    return this.stores.tenants.findByIds(readScopeOf(auth), ids);
  }

  async create(
    caller: Caller,
    input: { id: string; name: string; metadata?: Record<string, unknown> },
  ): Promise<TenantRecord> {
    const auth = requirePlatformOperator(caller);
    check()
      .text('id', input.id, { max: LIMITS.tenantId, pattern: PATTERNS.tenantId })
      .text('name', input.name, { max: LIMITS.tenantName })
      .done();
    return this.stores.transaction(async (s) => {
      if ((await s.tenants.findByIds(ALL_TENANTS, [input.id])).length > 0)
        throw new ConflictError(`Tenant '${input.id}' already exists`);
      const tenant = await s.tenants.create({ id: input.id, name: input.name, metadata: input.metadata ?? {} });
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: tenant.id,
          type: IDENTITY_EVENTS.tenantCreated,
          actor: auth.username,
          data: { tenant_id: tenant.id, name: tenant.name },
        }),
      );
      return tenant;
    });
  }
}
