// Wires the packs registry's domain from its dependencies: the Prisma unit of work, the clients
// of the rule-pack and schema registries (found through the registry's manifests), the
// dependency resolver and the tenant access rule (an operator's access to a tenant reaches that
// tenant's ledger through the outbox).
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { NO_MFA_POLICY, type MfaPolicy } from '../../platform/auth/mfa';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { RulePackRegistryClient } from '../../platform/clients/rulepack-registry.client';
import { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import { serviceUrl } from '../../platform/config/platform.config';
import type { Database } from '../../platform/db/database';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import type { Env, ServiceManifest } from '../../platform/service';
import { DependencyResolver } from './pack-dependencies';
import { PacksService } from './pack.service';
import { prismaPacksUnitOfWork, type PacksUnitOfWork } from './pack.store';

export interface PacksModule {
  service: PacksService;
  stores: PacksUnitOfWork;
}

/** Documented ports of the registries this one asks, when the registry does not list them. */
const RULEPACK_REGISTRY = { name: 'rulepack-registry', port: 8091 };
const SCHEMA_REGISTRY = { name: 'schema-registry', port: 8084 };

/**
 * `identity`: the registry's own, for dependency checks of callers without a token (service-identity.ts);
 * `requireAuth`: the port's mode (serviceRequiresAuth), false lets callers without a token read as X-Tenant-ID's tenant;
 * `mfa`: the platform's MFA policy (PlatformConfig.auth.mfa): certifying needs a second factor of its roles.
 */
export function createPacksModule(
  db: Database,
  env: Env,
  registry: readonly ServiceManifest[],
  identity?: DelegatedIdentity,
  requireAuth = true,
  mfa: MfaPolicy = NO_MFA_POLICY,
): PacksModule {
  const stores = prismaPacksUnitOfWork(db.prisma);
  const address = (fallback: { name: string; port: number }) =>
    registry.find((s) => s.name === fallback.name) ?? fallback;
  const resolver = new DependencyResolver({
    packs: stores,
    rulePacks: new RulePackRegistryClient(serviceUrl(env, address(RULEPACK_REGISTRY)), identity),
    schemas: new SchemaRegistryClient(serviceUrl(env, address(SCHEMA_REGISTRY)), identity),
  });
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
  return { service: new PacksService(stores, resolver, access, undefined, requireAuth), stores };
}
