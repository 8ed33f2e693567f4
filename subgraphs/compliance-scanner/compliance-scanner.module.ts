// Wires the scanner's domain from its dependencies: the SQL stores, the signing keys (the
// rule-pack registry's SigningKeys over scanner_signing_keys), the workflow client for
// suppressions' approvals and the tenant access rule (an operator's action in another tenant
// reaches that tenant's ledger through the outbox).
import type { Database } from '../../platform/db/database';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { WorkflowClient } from '../../platform/clients/workflow.client';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { SigningKeys } from '../rulepack-registry/signing-keys.service';
import type { ScannerConfig } from './compliance-scanner.config';
import { PackService, SERVICE } from './pack.service';
import { scannerPackKeyStore } from './pack.store';
import { ScanService } from './scan.service';
import { SuppressionService } from './suppression.service';
import { TargetService } from './target.service';

export interface ScannerModule {
  packs: PackService;
  targets: TargetService;
  scans: ScanService;
  suppressions: SuppressionService;
}

export function createScannerModule(deps: {
  db: Database;
  config: ScannerConfig;
  workflow: Pick<WorkflowClient, 'execute' | 'status'>;
  /** Wakes the notice relay after a commit that wrote `scanner.finding` notices. */
  onCommitted: () => void;
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
  return {
    packs,
    targets: new TargetService(sql, access, deps.config),
    scans: new ScanService(sql, access, packs, deps.config, deps.onCommitted, deps.now),
    suppressions: new SuppressionService(sql, access, deps.workflow, deps.config, deps.onCommitted, deps.now),
  };
}
