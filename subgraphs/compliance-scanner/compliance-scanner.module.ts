// Wires the scanner's domain from its dependencies: the SQL stores, the signing keys (the
// rule-pack registry's SigningKeys over scanner_signing_keys), the workflow client for
// suppressions' approvals, the config client for config targets, the scheduler and the tenant
// access rule (an operator's action in another tenant reaches that tenant's ledger through the
// outbox).
import type { Database } from '../../platform/db/database';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { ComplianceClient } from '../../platform/clients/compliance.client';
import type { ConfigClient } from '../../platform/clients/config.client';
import type { IngestionClient } from '../../platform/clients/ingestion.client';
import type { RetrievalClient } from '../../platform/clients/retrieval.client';
import type { WorkflowClient } from '../../platform/clients/workflow.client';
import type { Logger } from '../../platform/logging/logger';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { SigningKeys } from '../rulepack-registry/signing-keys.service';
import type { ScannerConfig } from './compliance-scanner.config';
import { PackService, SERVICE } from './pack.service';
import { scannerPackKeyStore } from './pack.store';
import { ScanScheduler } from './scan-scheduler';
import { ScanService } from './scan.service';
import { ScheduleService } from './schedule.service';
import type { ScanStatus } from './scanner.types';
import { SuppressionService } from './suppression.service';
import { TargetService } from './target.service';

export interface ScannerModule {
  packs: PackService;
  targets: TargetService;
  scans: ScanService;
  suppressions: SuppressionService;
  schedules: ScheduleService;
  scheduler: ScanScheduler;
}

export function createScannerModule(deps: {
  db: Database;
  config: ScannerConfig;
  workflow: Pick<WorkflowClient, 'execute' | 'status'>;
  /** Reads config targets; absent, their scans fail with a clear error. */
  configService?: Pick<ConfigClient, 'effective'>;
  /** Reads data assets (ingestion batches); absent, their scans fail with a clear error. */
  ingestion?: Pick<IngestionClient, 'allRecords'>;
  /** Reads data assets (retrieval documents); absent, their scans fail with a clear error. */
  retrieval?: Pick<RetrievalClient, 'document' | 'allDocuments' | 'allChunks'>;
  /** Reads the tenant's retention policies (retention rules); absent, their scans fail with a clear error. */
  compliance?: Pick<ComplianceClient, 'retentionPolicies'>;
  logger?: Pick<Logger, 'warn'>;
  /** Wakes the notice relay after a commit that wrote `scanner.finding` notices. */
  onCommitted: () => void;
  /** After a scan's start, read or end commits: the progress subscriptions' wake-up. */
  onScanChanged?: (tenantId: string, scanId: string, status: ScanStatus) => void;
  now?: () => Date;
}): ScannerModule {
  const sql = deps.db.sql;
  const access = new TenantAccess((a) =>
    sqlOutboxWriter(sql, SERVICE).append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  const packs = new PackService(
    sql,
    new SigningKeys(scannerPackKeyStore(sql), deps.config.signingKeyPem),
    access,
    deps.config.requireAuth,
  );
  const now = deps.now ?? (() => new Date());
  const scans = new ScanService(
    sql,
    access,
    packs,
    deps.config,
    deps.onCommitted,
    now,
    deps.configService,
    undefined,
    deps.onScanChanged,
    deps.ingestion,
    deps.retrieval,
    deps.compliance,
  );
  return {
    packs,
    targets: new TargetService(sql, access, deps.config),
    scans,
    schedules: new ScheduleService(sql, access, packs, deps.config, now),
    scheduler: new ScanScheduler(sql, scans, now, deps.logger ?? { warn: () => undefined }),
    suppressions: new SuppressionService(sql, access, deps.workflow, deps.config, deps.onCommitted, deps.now),
  };
}
