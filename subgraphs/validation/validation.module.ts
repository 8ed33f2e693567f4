// Wires the validation domain from its dependencies: the registries' clients, the pack cache and
// signature verifier, the outbox (audit and notices) and the tenant access rule. An operator's run in another
// tenant is recorded in that tenant's ledger through the same outbox.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { RulePackRegistryClient } from '../../platform/clients/rulepack-registry.client';
import { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import type { Database } from '../../platform/db/database';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { PendingNotice } from '../../platform/outbox/notice.writer';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { TtlLru } from './pack.cache';
import { PackSignatureVerifier } from './pack-signature';
import { RulePackSource, type RegistryReader, type ResolvedPack } from './rule-pack.source';
import { runRecordWriter } from './run-record.writer';
import { RunAudit } from './validation.audit';
import type { ValidationConfig } from './validation.config';
import { ValidationService, type SchemaLister } from './validation.service';

export interface ValidationModule {
  service: ValidationService;
  packs: RulePackSource;
}

export interface ValidationModuleDeps {
  db: Database;
  /** Where a run's committed notice is published (the live wake-up; the backbone has it already). */
  bus: Pick<EventBus, 'publish'>;
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
  // Runs record nothing but their audit event and notice: concurrent runs share one transaction.
  // One group at a time: a group locks its tenant stream's head until it commits, so a second
  // group in flight mostly waited for it, in smaller groups (more statements, more CPU per run:
  // docs/benchmarks.md, Speed pass, branch val round 5).
  const outbox = runRecordWriter(deps.db, deps.bus, logger, 'validation');
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
    audit: new RunAudit(outbox, deps.forwardCompliance),
    access,
    config,
  });
  return { service, packs };
}
