// The retrieval service's API as other services call it, in wire names: the request and
// response types of platform/clients/retrieval.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export interface IngestDocument {
  title: string;
  content: string;
  source?: string;
  level?: string;
  suiteId?: string;
  moduleId?: string;
  metadata?: Record<string, unknown>;
}

export interface IngestReceipt {
  status: number;
  body: unknown;
}

/** A document as `GET /documents` lists it (the fields a reader of the knowledge base uses). */
export interface RetrievalDocumentView {
  id: string;
  title: string;
  level: string;
  suite_id: string | null;
  module_id: string | null;
  entity_id: string | null;
  description: string | null;
  access_level: string;
  status: string;
  doc_metadata: Record<string, unknown>;
  chunks_count: number;
  created_at: string;
  updated_at: string;
}

/** `GET /documents`: the tenant's active documents, newest first. */
export interface RetrievalDocumentsPage {
  documents: RetrievalDocumentView[];
  total: number;
  limit: number;
  offset: number;
}

/** `GET /documents/{id}/chunks`: one document's text as its chunks in order. */
export interface RetrievalChunksPage {
  document_id: string;
  chunks: { ord: number; heading: string | null; content: string }[];
  next_after: number | null;
}
