// The audit events the ingestion service writes to the ledger (through the outbox).
/** A batch committed: its manifest (row count, per-column checksums, schema hash, run id). */
export const INGESTION_BATCH_EVENT = 'ingestion_batch';
/** A pipeline created, given a new version, or deleted. */
export const INGESTION_PIPELINE_EVENT = 'ingestion_pipeline';
/** A source schema change: approval requested, then approved or rejected by a person. */
export const INGESTION_SCHEMA_CHANGE_EVENT = 'ingestion_schema_change';
