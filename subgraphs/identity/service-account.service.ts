// Service accounts (spec auth rule 7): users with is_service = true that authenticate with a
// client id and secret. Only platform operators create them, because a service token may act for
// every tenant (platform/auth/tenant.rule.ts), which a tenant's admin must not
// be able to mint. Each account gets its own role `service:<name>` holding its scopes.
import { randomBytes } from 'node:crypto';
import { SERVICE_ROLE_PREFIX } from '../../platform/auth/jwt';
import { ConflictError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { IDENTITY_EVENTS } from './identity.audit';
import { requirePlatformOperator } from './access.policy';
import { check, LIMITS, PATTERNS } from './identity.rules';
import type { Caller } from '../../platform/auth/caller';
import { DEFAULT_TENANT } from '../../platform/auth/tenant.rule';
import { ALL_TENANTS, type IdentityUnitOfWork } from './identity.types';
import type { PasswordHasher } from './password.hasher';
import { roleNamesOf, scopesOf } from './user.view';

export interface CreatedServiceAccount {
  id: string;
  clientId: string;
  /** Shown once: only its hash is stored. */
  clientSecret: string;
  tenantId: string;
  roles: string[];
  scopes: string[];
}

export class ServiceAccountService {
  constructor(
    private readonly stores: IdentityUnitOfWork,
    private readonly hasher: PasswordHasher,
  ) {}

  async create(
    caller: Caller,
    input: { name: string; scopes?: string[]; tenantId?: string; description?: string | null },
  ): Promise<CreatedServiceAccount> {
    const auth = requirePlatformOperator(caller);
    const scopes = [...new Set(input.scopes ?? ['read'])];
    const tenantId = input.tenantId ?? DEFAULT_TENANT;
    const roleName = `${SERVICE_ROLE_PREFIX}${input.name}`;
    check()
      .text('name', input.name, { max: LIMITS.roleName - SERVICE_ROLE_PREFIX.length, pattern: PATTERNS.serviceName })
      .scopes('scopes', scopes)
      .done();
    // The secret is 256 random bits; scrypt is more than it needs, but one hash format keeps
    // one verification path (and service tokens are long-lived, so the cost is rare).
    const clientSecret = randomBytes(32).toString('base64url');
    const secretHash = await this.hasher.hash(clientSecret);
    return this.stores.transaction(async (s) => {
      if ((await s.tenants.findByIds(tenantId, [tenantId])).length === 0)
        throw new NotFoundError(`Tenant '${tenantId}' not found`);
      // A client id names one account platform-wide (the grant carries no tenant).
      const taken =
        (await s.users.exists(tenantId, input.name, null)).username ||
        (await s.users.findServiceAccount(input.name)) !== null;
      if (taken || (await s.roles.findByNames(ALL_TENANTS, [roleName])).length > 0)
        throw new ConflictError(`Service account '${input.name}' already exists`);
      const role = await s.roles.create({
        name: roleName,
        description: input.description ?? `Service account ${input.name}`,
        scopes,
        tenantId: null,
      });
      const [actor] = await s.users.findByUsernames(auth.tenantId, [auth.username]);
      const account = await s.users.create({
        username: input.name,
        email: null,
        passwordHash: secretHash,
        tenantId,
        isService: true,
        isVerified: true,
        roleIds: [role.id],
        assignedBy: actor?.id ?? null,
      });
      await s.outbox.append(
        auditEvent(caller, {
          tenantId,
          type: IDENTITY_EVENTS.serviceAccountCreated,
          actor: auth.username,
          data: { user_id: account.id, client_id: account.username, scopes },
        }),
      );
      return {
        id: account.id,
        clientId: account.username,
        clientSecret,
        tenantId,
        roles: roleNamesOf(account),
        scopes: scopesOf(account.roles),
      };
    });
  }
}
