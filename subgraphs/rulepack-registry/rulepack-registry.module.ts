// Wires the registry's domain from its dependencies: the stores over Prisma, the signing keys,
// the engine's compiler for the semantic check and the tenant access rule (an operator's action in
// another tenant reaches that tenant's ledger through the outbox).
import type { Database } from '../../platform/db/database';
import { NO_MFA_POLICY, type MfaPolicy } from '../../platform/auth/mfa';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import type { PackCompiler } from './pack-validation';
import type { RulePackRegistryConfig } from './rulepack-registry.config';
import { RulePackService, type NoticeSink } from './rulepack-registry.service';
import { prismaUnitOfWork } from './rulepack-registry.stores';
import { prismaSigningKeyStore } from './signing-key.store';
import { SigningKeys } from './signing-keys.service';

export interface RulePackModule {
  service: RulePackService;
  keys: SigningKeys;
}

/**
 * `requireAuth`: the port's mode (serviceRequiresAuth); false lets callers without a token read as X-Tenant-ID's tenant.
 * `mfa`: the platform's MFA policy (PlatformConfig.auth.mfa): certifying needs a second factor of its roles.
 */
export function createRulePackModule(
  db: Database,
  config: RulePackRegistryConfig,
  compile: PackCompiler,
  onCommitted: NoticeSink,
  requireAuth = true,
  mfa: MfaPolicy = NO_MFA_POLICY,
): RulePackModule {
  const stores = prismaUnitOfWork(db.prisma);
  const access = new TenantAccess(
    (a) =>
      stores.outbox.append(
        auditEvent(a, {
          tenantId: a.tenantId,
          type: OPERATOR_ACCESS_EVENT,
          actor: a.operator,
          data: operatorAccessData(a),
        }),
      ),
    mfa,
  );
  const keys = new SigningKeys(prismaSigningKeyStore(db.prisma), config.signingKeyPem);
  return { service: new RulePackService(stores, keys, compile, access, onCommitted, requireAuth), keys };
}
