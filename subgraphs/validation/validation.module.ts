// Wires the validation domain from its dependencies: the registries' clients, the pack cache and
// signature verifier, the outbox (audit and notices) and the tenant access rule. An operator's run in another
// tenant is recorded in that tenant's ledger through the same outbox.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { RulePackRegistryClient } from '../../platform/clients/rulepack-registry.client';
import { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import type { Database } from '../../platform/db/database';
import type { Logger } from '../../platform/logging/logger';
import { groupedAuditNoticeWriter, type PendingNotice } from '../../platform/outbox/notice.writer';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { TtlLru } from './pack.cache';
import { PackSignatureVerifier } from './pack-signature';
import { RulePackSource, type RegistryReader, type ResolvedPack } from './rule-pack.source';
import { RunAudit } from './validation.audit';
import type { ValidationConfig } from './validation.config';
import { ValidationService, type SchemaLister } from './validation.service';

/** Audit groups written at once on PostgreSQL (4 measured worse than 2: smaller groups, more statements; docs/benchmarks.md, Speed pass). */
const AUDIT_GROUPS_IN_FLIGHT = 2;

export interface ValidationModule {
  service: ValidationService;
  packs: RulePackSource;
}

export interface ValidationModuleDeps {
  db: Database;
  /** Called after a run's notice commits (wakes the service's notice relay). */
  onNoticeCommitted?: () => void;
  config: ValidationConfig;
  logger: Logger;
  /** Stand-ins for the registries' clients (tests); the HTTP clients otherwise. */
  registry?: RegistryReader & { signingKeys: RulePackRegistryClient['signingKeys'] };
  schemas?: SchemaLister;
  /** The service's own identity for registry calls of callers without a token (service-identity.ts). */
  identity?: DelegatedIdentity;
  /** Each run's committed compliance notice, also handed to the compliance service's client (PLATFORM_COMPLIANCE_URL). */
  forwardCompliance?: (notice: PendingNotice) => void;
}

export function createValidationModule(deps: ValidationModuleDeps): ValidationModule {
  const { config, logger } = deps;
  const registry = deps.registry ?? new RulePackRegistryClient(config.rulepackRegistryUrl, deps.identity);
  const signatures = new PackSignatureVerifier(registry, { ttlMs: config.packCacheTtlMs });
  const packs = new RulePackSource(
    registry,
    signatures,
    new TtlLru<ResolvedPack>(config.packCacheSize, config.packCacheTtlMs),
    logger,
  );
  // Runs record nothing but their audit event and notice: concurrent runs share one statement,
  // and on PostgreSQL the next group starts while one commits (docs/validation.md, "Audit writes").
  const outbox = groupedAuditNoticeWriter(deps.db.sql, 'validation', {
    maxInFlight: deps.db.kind === 'postgres' ? AUDIT_GROUPS_IN_FLIGHT : 1,
  });
  const access = new TenantAccess((a) =>
    outbox.append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  const service = new ValidationService({
    packs,
    schemas: deps.schemas ?? new SchemaRegistryClient(config.schemaRegistryUrl, deps.identity),
    audit: new RunAudit(outbox, deps.onNoticeCommitted, deps.forwardCompliance),
    access,
    config,
  });
  return { service, packs };
}
