// Wires DataFlow's domain: the stores over the raw SQL executor, the packs registry client (with
// the service's identity for callers without a token), the tenant rule whose operator-access
// records go through the outbox, and the bus publisher for finished reconciliations.
import type { ServiceIdentity } from '../../platform/auth/service-identity';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { IngestionClient } from '../../platform/clients/ingestion.client';
import { PacksRegistryClient } from '../../platform/clients/packs-registry.client';
import type { SqlExecutor } from '../../platform/db/sql';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import type { DataflowConfig } from './dataflow.config';
import type { RunRecord } from './dataflow.types';
import { sqlDatasetStore } from './dataset.store';
import { registryPackSource, type PackSource } from './pack.source';
import { DataflowService } from './run.service';
import { sqlRunStore, type RunStore } from './run.store';

export function createDataflowModule(
  sql: SqlExecutor,
  config: DataflowConfig,
  identity: ServiceIdentity,
  onFinished?: (run: RunRecord) => Promise<void>,
  onChanged?: (run: Pick<RunRecord, 'tenantId' | 'id' | 'status'>) => Promise<void>,
): { service: DataflowService; runs: RunStore; packs: PackSource } {
  const outbox = sqlOutboxWriter(sql, 'dataflow');
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
  const runs = sqlRunStore(sql);
  const packs = registryPackSource(new PacksRegistryClient(config.packsRegistryUrl, identity));
  const service = new DataflowService({
    runs,
    datasets: sqlDatasetStore(sql),
    sql,
    packs,
    access,
    config,
    onFinished,
    onChanged,
    ingestion: new IngestionClient(config.ingestionUrl, identity),
  });
  return { service, runs, packs };
}
