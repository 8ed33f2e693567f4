// Role rules: any admin may create a role (spec: `POST /v1/roles` needs role admin). Roles are
// platform-wide names with scopes; the `service:` namespace is kept for service accounts.
import { ConflictError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './audit.events';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { isPlatformOperator, requireAdmin } from './access.policy';
import { SERVICE_ROLE_PREFIX } from '../../platform/auth/jwt';
import { check, LIMITS, PATTERNS } from './identity.rules';
import type { IdentityUnitOfWork, RoleRecord } from './identity.types';

export class RoleService {
  constructor(private readonly stores: IdentityUnitOfWork) {}

  /** Service-account roles name the platform's services, so only platform operators see them. */
  async list(caller: Caller): Promise<RoleRecord[]> {
    const auth = requireAuth(caller);
    const roles = await this.stores.roles.list();
    return isPlatformOperator(auth) ? roles : roles.filter((r) => !r.name.startsWith(SERVICE_ROLE_PREFIX));
  }

  async create(caller: Caller, input: { name: string; scopes?: string[]; description?: string | null }): Promise<RoleRecord> {
    const auth = requireAdmin(caller);
    const scopes = [...new Set(input.scopes ?? [])];
    check()
      .text('role_name', input.name, { max: LIMITS.roleName, pattern: PATTERNS.roleName })
      .notServiceRole('role_name', input.name)
      .scopes('scopes', scopes)
      .done();
    if (input.description != null) check().text('description', input.description, { min: 0, max: LIMITS.description }).done();
    return this.stores.transaction(async (s) => {
      if ((await s.roles.findByNames([input.name])).length > 0) throw new ConflictError(`Role '${input.name}' already exists`);
      const role = await s.roles.create({ name: input.name, description: input.description ?? null, scopes });
      await s.outbox.append(auditEvent(caller, { tenantId: auth.tenantId, type: IDENTITY_EVENTS.roleCreated, actor: auth.username, data: { role_name: role.name, scopes: role.scopes } }));
      return role;
    });
  }
}
