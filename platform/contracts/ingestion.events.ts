// Ingestion completions (issue 26): an OCR job that reached its end, and a document the retrieval
// service finished ingesting. Both are written to the notice outbox in the same transaction that
// ends the job, so a listener (the events service, a suite's workflow) hears of every one. Ids,
// statuses and counts only: never the document's text.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { TenantId, Timestamp } from './contract.types';

/** An OCR job that ended (v1): completed, waiting for a person's review, or failed. */
export const OcrJobCompletedSchema = Type.Object(
  {
    tenant_id: TenantId,
    job_id: Type.String({ minLength: 1 }),
    status: Type.Union([Type.Literal('completed'), Type.Literal('review'), Type.Literal('failed')]),
    tier_used: Type.Union([Type.String(), Type.Null()]),
    confidence_score: Type.Union([Type.Number(), Type.Null()]),
    page_count: Type.Integer({ minimum: 0 }),
    at: Timestamp,
  },
  { $id: 'ocr.job_completed.v1' },
);
export type OcrJobCompleted = Static<typeof OcrJobCompletedSchema>;

export const OCR_JOB_COMPLETED = eventContract({
  topic: 'ocr.job_completed',
  version: 1,
  schema: OcrJobCompletedSchema,
  producer: 'ocr',
  consumers: [],
  description: 'An OCR job ended: completed, sent to review (low confidence) or failed.',
});

/** A document whose ingestion job completed (v1): chunked, embedded and searchable. */
export const RagDocumentIngestedSchema = Type.Object(
  {
    tenant_id: TenantId,
    job_id: Type.String({ minLength: 1 }),
    document_id: Type.String({ minLength: 1 }),
    at: Timestamp,
  },
  { $id: 'rag.document_ingested.v1' },
);
export type RagDocumentIngested = Static<typeof RagDocumentIngestedSchema>;

export const RAG_DOCUMENT_INGESTED = eventContract({
  topic: 'rag.document_ingested',
  version: 1,
  schema: RagDocumentIngestedSchema,
  producer: 'rag',
  consumers: [],
  description: 'A document finished ingesting into retrieval: its chunks are embedded and searchable.',
});
