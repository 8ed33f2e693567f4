// Topics between the services that move data (issues 32-34): an ingestion batch that landed (what
// DataFlow is triggered by), a reconciliation DataFlow finished, and a finding the compliance
// scanner opened, suppressed or resolved (both of which the compliance service takes in as
// evidence). Declared before their producers exist so that the three are built against one
// contract. Ids, counts, digests and lineage only: never a record's values.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { PackId, SemVer, TenantId, Timestamp } from './contract.types';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Id = Type.String({ minLength: 1, maxLength: 200 });

/** A dataset as OpenLineage names one: a namespace (where) and a name (what). */
export const LineageDatasetSchema = Type.Object({
  namespace: Type.String({ minLength: 1, maxLength: 500 }),
  name: Type.String({ minLength: 1, maxLength: 500 }),
});

/** One ingestion batch committed to its target dataset (v1). */
export const IngestionCompletedSchema = Type.Object(
  {
    tenant_id: TenantId,
    pipeline_id: Id,
    pipeline_version: Type.Integer({ minimum: 1 }),
    run_id: Id,
    batch_id: Id,
    /** The target dataset the batch's records were written to (DataFlow's input name). */
    dataset: Type.String({ minLength: 1, maxLength: 200 }),
    source_kind: Type.Union([
      Type.Literal('file_drop'),
      Type.Literal('rest_push'),
      Type.Literal('rest_pull'),
      Type.Literal('sftp'),
      Type.Literal('postgres_cdc'),
    ]),
    records: Type.Integer({ minimum: 0 }),
    rejected: Type.Integer({ minimum: 0 }),
    /** SHA-256 of the batch as received (the file, or the canonical JSON of the pulled page). */
    content_sha256: Sha256,
    schema_version: Type.Union([Type.String(), Type.Null()]),
    lineage: Type.Object({ inputs: Type.Array(LineageDatasetSchema), outputs: Type.Array(LineageDatasetSchema) }),
    at: Timestamp,
  },
  { $id: 'ingestion.completed.v1' },
);
export type IngestionCompleted = Static<typeof IngestionCompletedSchema>;

export const INGESTION_COMPLETED = eventContract({
  topic: 'ingestion.completed',
  version: 1,
  schema: IngestionCompletedSchema,
  producer: 'ingestion',
  consumers: ['dataflow', 'scanner'],
  description: 'An ingestion batch was normalised, scrubbed and committed to its target dataset.',
});

/** An ingestion batch that did not land (v1): the source could not be read, or its schema changed (quarantined). */
export const IngestionFailedSchema = Type.Object(
  {
    tenant_id: TenantId,
    pipeline_id: Id,
    pipeline_version: Type.Integer({ minimum: 1 }),
    run_id: Id,
    batch_id: Id,
    dataset: Type.String({ minLength: 1, maxLength: 200 }),
    source_kind: IngestionCompletedSchema.properties.source_kind,
    /** failed: the batch stopped (a retry resumes from its checkpoint); quarantined: it waits for a person (schema change). */
    status: Type.Union([Type.Literal('failed'), Type.Literal('quarantined')]),
    /** Why, without values: a format error, a limit, a schema change's column names. */
    reason: Type.String({ maxLength: 2000 }),
    /** Records committed before it stopped (they stay; a retry continues after them). */
    records: Type.Integer({ minimum: 0 }),
    at: Timestamp,
  },
  { $id: 'ingestion.failed.v1' },
);
export type IngestionFailed = Static<typeof IngestionFailedSchema>;

export const INGESTION_FAILED = eventContract({
  topic: 'ingestion.failed',
  version: 1,
  schema: IngestionFailedSchema,
  producer: 'ingestion',
  consumers: [],
  description:
    'An ingestion batch failed (resumable from its checkpoint) or was quarantined for a source schema change.',
});

/** One reconciliation run of a dataflow pack (v1): the spec's gtas_reconciliation counts and more. */
export const DataflowReconciliationCompletedSchema = Type.Object(
  {
    tenant_id: TenantId,
    run_id: Id,
    pack_id: PackId,
    pack_version: SemVer,
    reconciliation: Type.String({ minLength: 1, maxLength: 200 }),
    result: Type.Union([Type.Literal('passed'), Type.Literal('failed')]),
    matched: Type.Integer({ minimum: 0 }),
    unmatched_left: Type.Integer({ minimum: 0 }),
    unmatched_right: Type.Integer({ minimum: 0 }),
    breaks: Type.Integer({ minimum: 0 }),
    /** SHA-256 of the canonical JSON of the full result kept by DataFlow. */
    result_sha256: Sha256,
    at: Timestamp,
  },
  { $id: 'dataflow.reconciliation_completed.v1' },
);
export type DataflowReconciliationCompleted = Static<typeof DataflowReconciliationCompletedSchema>;

export const DATAFLOW_RECONCILIATION_COMPLETED = eventContract({
  topic: 'dataflow.reconciliation_completed',
  version: 1,
  schema: DataflowReconciliationCompletedSchema,
  producer: 'dataflow',
  consumers: ['compliance'],
  description: 'A dataflow pack reconciled two datasets: matched, unmatched and break counts.',
});

/** A dataflow run's progress or end was committed (v1): a wake-up, the subscription then reads the run. */
export const DataflowRunChangedSchema = Type.Object(
  {
    tenant_id: TenantId,
    run_id: Id,
    status: Type.Union([
      Type.Literal('running'),
      Type.Literal('passed'),
      Type.Literal('failed'),
      Type.Literal('error'),
    ]),
  },
  { $id: 'dataflow.run_changed.v1' },
);
export type DataflowRunChanged = Static<typeof DataflowRunChangedSchema>;

export const DATAFLOW_RUN_CHANGED = eventContract({
  topic: 'dataflow.run_changed',
  version: 1,
  schema: DataflowRunChangedSchema,
  producer: 'dataflow',
  consumers: ['dataflow'],
  description:
    "Wake-up after a dataflow run's progress or end is committed: dataflowRunProgress subscriptions then read the run.",
});

/** A compliance scan's progress or end was committed (v1): a wake-up, the subscription then reads the scan. */
export const ScannerScanChangedSchema = Type.Object(
  {
    tenant_id: TenantId,
    scan_id: Id,
    status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]),
  },
  { $id: 'scanner.scan_changed.v1' },
);
export type ScannerScanChanged = Static<typeof ScannerScanChangedSchema>;

export const SCANNER_SCAN_CHANGED = eventContract({
  topic: 'scanner.scan_changed',
  version: 1,
  schema: ScannerScanChangedSchema,
  producer: 'compliance-scanner',
  consumers: ['compliance-scanner'],
  description:
    "Wake-up after a compliance scan's progress or end is committed: scannerScanProgress subscriptions then read the scan.",
});

/** A scanner finding that was opened, suppressed, reopened or resolved (v1). */
export const ScannerFindingSchema = Type.Object(
  {
    tenant_id: TenantId,
    finding_id: Id,
    scan_id: Id,
    pack_id: PackId,
    pack_version: SemVer,
    rule_id: Type.String({ minLength: 1, maxLength: 200 }),
    severity: Type.Union([
      Type.Literal('critical'),
      Type.Literal('high'),
      Type.Literal('medium'),
      Type.Literal('low'),
      Type.Literal('info'),
    ]),
    status: Type.Union([
      Type.Literal('open'),
      Type.Literal('suppressed'),
      Type.Literal('reopened'),
      Type.Literal('resolved'),
    ]),
    target_kind: Type.Union([Type.Literal('repository'), Type.Literal('configuration'), Type.Literal('data')]),
    /** Where, without values: a repository path and line, a config key pointer, a dataset and column. */
    location: Type.String({ maxLength: 2000 }),
    /** Stable across scans: the same problem at the same place has the same fingerprint. */
    fingerprint: Sha256,
    /** The compliance catalog's control ids the rule evidences (e.g. "ac-2", "CC6.1"). */
    controls: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 }),
    at: Timestamp,
  },
  { $id: 'scanner.finding.v1' },
);
export type ScannerFinding = Static<typeof ScannerFindingSchema>;

export const SCANNER_FINDING = eventContract({
  topic: 'scanner.finding',
  version: 1,
  schema: ScannerFindingSchema,
  producer: 'compliance-scanner',
  consumers: ['compliance'],
  description: 'A compliance-scanner finding changed state: opened, suppressed, reopened or resolved.',
});
