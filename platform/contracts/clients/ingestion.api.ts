// The ingestion service's API as other services call it, in wire names: the request and response
// types of platform/clients/ingestion.client.ts (rest-compat/ingestion serves them).

export type IngestionSourceKind = 'rest_push' | 'file_drop' | 'rest_pull' | 'sftp' | 'postgres_cdc';
export type IngestionBatchStatus = 'running' | 'completed' | 'failed' | 'quarantined';

export interface IngestionPipelineView {
  id: string;
  tenant_id: string;
  name: string;
  source_kind: IngestionSourceKind;
  version: number;
  definition: Record<string, unknown>;
  definition_sha256: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface IngestionManifestView {
  run_id: string;
  batch_id: string;
  pipeline_id: string;
  pipeline_version: number;
  dataset: string;
  row_count: number;
  rejected: number;
  content_sha256: string;
  schema_hash: string;
  column_checksums: Record<string, string>;
}

export interface IngestionBatchView {
  id: string;
  tenant_id: string;
  pipeline_id: string;
  pipeline_version: number;
  run_id: string;
  source_name: string;
  content_sha256: string;
  status: IngestionBatchStatus;
  progress: { rows_read: number; rows_staged: number; rows_quarantined: number };
  error: string | null;
  manifest: IngestionManifestView | null;
  created_at: string;
  completed_at: string | null;
}

export interface IngestionStagedRecordView {
  batch_id: string;
  offset: number;
  dataset: string;
  source: string;
  data: Record<string, unknown>;
}

export interface IngestionRecordsPage {
  records: IngestionStagedRecordView[];
  next_after: number | null;
}
