// Wires the compliance domain from its dependencies: the stores, the tenant access rule (an
// operator's access recorded in the tenant's ledger through the outbox), the mapping-pack signing
// keys and the ledger through which evidence is recorded and proved.
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { Database } from '../../platform/db/database';
import type { Logger } from '../../platform/logging/logger';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import type { SubjectVault } from '../../platform/vault/subject-vault';
import { SigningKeys } from '../rulepack-registry/signing-keys.service';
import { CatalogService } from './catalog.service';
import { catalogStore } from './catalog.store';
import type { ComplianceConfig } from './compliance.config';
import type { EvidenceLedger } from './evidence-ledger';
import { ErasureService } from './erasure.service';
import { EvidenceService } from './evidence.service';
import { evidenceStore } from './evidence.store';
import { MappingPackService } from './mapping-pack.service';
import { mappingPackKeyStore, mappingPackStore } from './mapping-pack.store';
import type { ReportLedger } from './report-ledger';
import { ReportSignOffService, type SignOffWorkflow } from './report-signoff.service';
import { ReportService } from './report.service';
import { reportStore } from './report.store';
import { RetentionService } from './retention.service';

export interface ComplianceModule {
  catalog: CatalogService;
  packs: MappingPackService;
  evidence: EvidenceService;
  reports: ReportService;
  signOff: ReportSignOffService;
  retention: RetentionService;
  erasure: ErasureService;
}

export function createComplianceModule(deps: {
  db: Database;
  config: ComplianceConfig;
  ledger: EvidenceLedger;
  /** Checkpoints, proofs and sign-offs of reports. */
  reportLedger: ReportLedger;
  /** Where report sign-offs run as approval workflows. */
  workflow: SignOffWorkflow;
  logger: Pick<Logger, 'warn'>;
  /** The subject vault whose keys an erasure destroys (platform/vault). */
  vault: SubjectVault;
  /** The clock of freshness and default expiries (tests pass their own). */
  now?: () => Date;
}): ComplianceModule {
  const sql = deps.db.sql;
  const access = new TenantAccess((a) =>
    sqlOutboxWriter(sql, 'compliance').append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  const catalog = new CatalogService(sql, catalogStore, access);
  const packs = new MappingPackService(
    sql,
    mappingPackStore,
    catalogStore,
    new SigningKeys(mappingPackKeyStore(sql), deps.config.signingKeyPem),
    access,
  );
  const evidence = new EvidenceService(
    sql,
    evidenceStore,
    catalogStore,
    catalog,
    packs,
    deps.ledger,
    access,
    deps.config,
    deps.logger,
    deps.now,
  );
  const reports = new ReportService(
    sql,
    reportStore,
    catalog,
    evidence,
    deps.reportLedger,
    access,
    deps.config,
    deps.logger,
    deps.now,
  );
  const signOff = new ReportSignOffService(sql, reportStore, deps.reportLedger, deps.workflow, access, deps.logger);
  const retention = new RetentionService(sql, access, deps.vault, deps.config.legalMinimums);
  const erasure = new ErasureService(sql, access, deps.vault);
  return { catalog, packs, evidence, reports, signOff, retention, erasure };
}
