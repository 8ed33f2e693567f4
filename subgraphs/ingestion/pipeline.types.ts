// The records of the ingestion service: a pipeline definition (the JSON document the schema
// registry's `ingestion-pipeline` schema describes, platform/contracts/ingestion-pipeline.schema.json),
// its stored versions, runs, batches, quarantined records, lineage events and source schema changes.
import type { Caller } from '../../platform/auth/caller';

export type SourceKind = 'rest_push' | 'file_drop' | 'rest_pull' | 'sftp' | 'postgres_cdc';
export type FormatType = 'csv' | 'json' | 'ndjson' | 'xml' | 'xlsx' | 'parquet';
export type PiiAction = 'tokenize' | 'mask' | 'hash' | 'remove';
export type RunStatus = 'running' | 'completed' | 'failed' | 'quarantined';

export interface PipelineDefinition {
  name: string;
  description?: string;
  source: {
    kind: SourceKind;
    url?: string;
    host?: string;
    port?: number;
    path?: string;
    username?: string;
    password?: string;
    private_key?: string;
    host_key_sha256?: string;
    /** postgres_cdc: `schema.table` (or `table`) captured, in `database`. */
    table?: string;
    database?: string;
    complete?: 'stable' | 'done_marker';
    pagination?: {
      next_field?: string;
      /** With next_field: the value is a cursor sent back as this query parameter (else it is a URL). */
      cursor_param?: string;
      /** Page-number pagination: this query parameter counts from page_start (1) until a page is empty. */
      page_param?: string;
      page_start?: number;
      items_field?: string;
      max_pages?: number;
    };
  };
  format: {
    type: FormatType;
    delimiter?: string;
    quote?: string;
    header?: boolean;
    encoding?: BufferEncoding;
    /** XML: the element each record is. */
    record_element?: string;
    /** XLSX: the sheet read (the workbook's first when unnamed). */
    sheet?: string;
  };
  /** Target field -> JSONata expression over the source record. */
  mapping: Record<string, string>;
  target: { dataset: string; schema: Record<string, unknown> };
  pii?: { fields?: Record<string, PiiAction> };
  schedule?: { interval_seconds?: number };
  batch_size?: number;
}

export interface Pipeline {
  id: string;
  tenantId: string;
  name: string;
  sourceKind: SourceKind;
  version: number;
  status: 'active' | 'deleted';
  definition: PipelineDefinition;
  definitionSha256: string;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface PipelineVersion {
  version: number;
  definition: PipelineDefinition;
  definitionSha256: string;
  createdBy: string | null;
  createdAt: Date;
}

export interface Batch {
  id: string;
  tenantId: string;
  pipelineId: string;
  pipelineVersion: number;
  runId: string;
  sourceName: string;
  contentSha256: string;
  status: RunStatus;
  rowsRead: number;
  rowsStaged: number;
  rowsQuarantined: number;
  error: string | null;
  manifest: BatchManifest | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** What the ledger keeps of a batch (the `ingestion_batch` audit event's data). */
export interface BatchManifest {
  run_id: string;
  batch_id: string;
  pipeline_id: string;
  pipeline_version: number;
  dataset: string;
  row_count: number;
  rejected: number;
  content_sha256: string;
  /** SHA-256 of the canonical target schema and the source's columns. */
  schema_hash: string;
  /** Per target column: SHA-256 over the staged values in offset order. */
  column_checksums: Record<string, string>;
}

export interface QuarantinedRecord {
  batchId: string;
  offset: number;
  reason: string;
  record: Record<string, unknown> | null;
  rawSha256: string;
  createdAt: Date;
}

export interface StagedRecord {
  batchId: string;
  offset: number;
  dataset: string;
  source: string;
  data: Record<string, unknown>;
}

export interface LineageEvent {
  eventType: 'START' | 'COMPLETE' | 'FAIL';
  event: Record<string, unknown>;
  createdAt: Date;
}

/** Input limits shared by the REST door and the domain. */
export interface IngestionLimits {
  /** Largest upload or pulled body, in bytes. */
  maxBytes: number;
  /** Longest record (a CSV line, an NDJSON line), in bytes. */
  maxRecordBytes: number;
  /** Most columns a CSV record may have. */
  maxColumns: number;
  /** ZIP containers (XLSX): entries and inflation (zip-archive.ts's defaults when unset). */
  archive?: ArchiveLimits;
  /** XLSX: the most characters of shared strings held while a sheet is read (xlsx-reader.ts's default when unset). */
  maxSharedStringsBytes?: number;
  /** Parquet: the most uncompressed bytes a row group may hold (parquet-reader.ts's default when unset). */
  maxRowGroupBytes?: number;
}

/** Bounds on a ZIP container's directory and on inflating its entries (zip-archive.ts). */
export interface ArchiveLimits {
  /** Most entries an archive may list. */
  maxEntries: number;
  /** Largest an entry may be once inflated, in bytes. */
  maxEntryBytes: number;
  /** Largest inflated/compressed ratio an entry may have (checked once it is past 1 MiB inflated). */
  maxRatio: number;
}

/** pending_approval: a reviewer's task is open; unrequested: the workflow could not be asked (a new pipeline version still approves). */
export type SchemaChangeStatus = 'pending_approval' | 'approved' | 'rejected' | 'unrequested';

/** A source schema change met by a batch (quarantined whole) and the person's decision on it. */
export interface SchemaChange {
  id: string;
  tenantId: string;
  pipelineId: string;
  batchId: string;
  /** The source's columns as the batch had them, sorted. */
  columns: string[];
  added: string[];
  removed: string[];
  status: SchemaChangeStatus;
  /** Who sent the batch (a user, or the service for connectors' batches). */
  requestedBy: string | null;
  workflowId: string | null;
  approvalTaskId: string | null;
  reviewer: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

/** A caller with the bearer token it came with, forwarded to the workflow service as the requester. */
export type IngestionCaller = Caller & { token?: string };
