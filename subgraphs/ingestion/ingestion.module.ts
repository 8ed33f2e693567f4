// Wires the ingestion domain: the stores over the database, the pipeline schema from the schema
// registry (the contract file when it cannot be reached), the tenant rule with operator audit,
// the batch service with its limits and PII secret, and source schema changes sent to the
// workflow service for a person's approval.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import { WorkflowClient } from '../../platform/clients/workflow.client';
import type { Database } from '../../platform/db/database';
import { auditEvent, outboxWriter } from '../../platform/outbox/outbox.writer';
import { createBatchStore } from './batch.store';
import { createBatchTableStore } from './batch-table.store';
import { FileDropConnector } from './file-drop.connector';
import type { Logger } from '../../platform/logging/logger';
import { BatchService } from './batch.service';
import type { IngestionConfig } from './ingestion.config';
import { PipelineSchemaSource } from './pipeline-schema.source';
import { createPipelineStore } from './pipeline.store';
import { PipelineService } from './pipeline.service';
import { PullScheduler } from './pull-scheduler';
import { SchemaChangeService } from './schema-change.service';
import { createSchemaChangeStore } from './schema-change.store';
import { CdcManager } from './cdc.manager';
import { SourcePuller } from './source-puller';
import type { Env } from '../../platform/service';

export interface IngestionModule {
  pipelines: PipelineService;
  batches: BatchService;
  /** The file-drop watcher, when INGESTION_DROP_ROOT is set (started and stopped with the service). */
  fileDrop?: FileDropConnector;
  /** Pulls of rest_pull and sftp sources, on request and by schedule. */
  puller: SourcePuller;
  /** Runs scheduled pulls (started and stopped with the service; absent when INGESTION_SCHEDULER_TICK_MS=0). */
  scheduler?: PullScheduler;
  /** Runs postgres_cdc pipelines' replication (started and stopped with the service, like the scheduler). */
  replication?: CdcManager;
}

export function createIngestionModule(deps: {
  db: Database;
  config: IngestionConfig;
  identity?: DelegatedIdentity;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** The workflow service asked to approve source schema changes (a client of config.workflowUrl by default). */
  workflow?: Pick<WorkflowClient, 'execute' | 'status'>;
  /** Where `secret://env/` references are read (the process environment). */
  env?: Env;
}): IngestionModule {
  const { db, config } = deps;
  const outbox = outboxWriter(db.prisma, 'ingestion');
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
  const pipelineStore = createPipelineStore(db.sql);
  const pipelines = new PipelineService({
    store: pipelineStore,
    schema: new PipelineSchemaSource(new SchemaRegistryClient(config.schemaRegistryUrl, deps.identity)),
    access,
    requireAuth: config.requireAuth,
  });
  const batches = new BatchService({
    pipelines,
    pipelineStore,
    store: createBatchStore(db.sql),
    batchTables: config.csvViaCopy ? createBatchTableStore(db.sql) : null,
    schemaChanges: new SchemaChangeService({
      store: createSchemaChangeStore(db.sql),
      workflow: deps.workflow ?? new WorkflowClient(config.workflowUrl, deps.identity),
      logger: deps.logger,
    }),
    limits: config.limits,
    piiSecret: config.piiSecret,
    spoolDir: config.spoolDir,
    testStall: config.testStall,
  });
  const fileDrop = config.dropRoot
    ? new FileDropConnector({
        root: config.dropRoot,
        stableMs: config.dropStableMs,
        pipelines: pipelineStore,
        batches,
        logger: deps.logger,
      })
    : undefined;
  const puller = new SourcePuller({
    pipelines,
    pipelineStore,
    batches,
    guard: config.pullGuard,
    env: deps.env ?? process.env,
    secretRoots: config.secretRoots,
    spoolDir: config.spoolDir,
  });
  const scheduler =
    config.schedulerTickMs > 0
      ? new PullScheduler({ store: pipelineStore, puller, tickMs: config.schedulerTickMs, logger: deps.logger })
      : undefined;
  const replication =
    config.schedulerTickMs > 0
      ? new CdcManager({
          store: pipelineStore,
          batches,
          env: deps.env ?? process.env,
          secretRoots: config.secretRoots,
          tickMs: config.schedulerTickMs,
          flushMs: config.cdcFlushMs,
          heartbeatMs: config.cdcHeartbeatMs,
          spoolDir: config.spoolDir,
          logger: deps.logger,
        })
      : undefined;
  return { pipelines, batches, fileDrop, puller, scheduler, replication };
}
