// Typed client of the retrieval service: its ingest route (spec 02: POST /v1/rag/ingest, "ingest a
// document or URL with scope"; payload not given by the spec, so the body is this platform's:
// title, content, source, metadata and the scope fields), used by OCR to index extracted text;
// and reads of a tenant's documents and their text (GET /documents, GET /documents/{id}/chunks),
// used by the compliance scanner to sample them for unmasked PII. Reads throw ServiceCallErrors.
import type { DelegatedIdentity } from '../auth/service-identity';
import { credentialHeaders, serviceRequest, type ServiceCallContext } from './service-request';
import type {
  IngestDocument,
  IngestReceipt,
  RetrievalChunksPage,
  RetrievalDocumentsPage,
  RetrievalDocumentView,
} from '../contracts/clients/retrieval.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { IngestDocument, IngestReceipt, RetrievalChunksPage, RetrievalDocumentsPage, RetrievalDocumentView };

export class RetrievalClient {
  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 15_000,
    private readonly identity?: DelegatedIdentity,
  ) {}

  async ingest(
    tenantId: string,
    doc: IngestDocument,
    forwarding: { token?: string; correlationId?: string } = {},
  ): Promise<IngestReceipt> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(await credentialHeaders({ ...forwarding, tenantId }, this.identity)),
    };
    const response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/v1/rag/ingest`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: doc.title,
        content: doc.content,
        source: doc.source,
        level: doc.level ?? 'platform',
        suite_id: doc.suiteId,
        module_id: doc.moduleId,
        metadata: doc.metadata ?? {},
      }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (!response.ok) throw new Error(`retrieval ingest answered ${response.status}`);
    return { status: response.status, body };
  }

  /** One page of the tenant's active documents, newest first (metadata, no text). */
  documents(
    context: ServiceCallContext,
    page: { limit?: number; offset?: number } = {},
  ): Promise<RetrievalDocumentsPage> {
    return serviceRequest(this.endpoint(), 'documents', context, {
      query: { limit: page.limit, offset: page.offset },
      timeoutMs: this.timeoutMs,
    });
  }

  /** One active document (metadata, no text). A missing document is a ServiceCallError 404. */
  document(context: ServiceCallContext, documentId: string): Promise<RetrievalDocumentView> {
    return serviceRequest(this.endpoint(), `documents/${encodeURIComponent(documentId)}`, context, {
      timeoutMs: this.timeoutMs,
    });
  }

  /** One page of a document's chunks in order, after `after` (-1 for the first). A missing document is a 404. */
  chunks(
    context: ServiceCallContext,
    documentId: string,
    page: { after?: number; limit?: number } = {},
  ): Promise<RetrievalChunksPage> {
    return serviceRequest(this.endpoint(), `documents/${encodeURIComponent(documentId)}/chunks`, context, {
      query: { after: page.after, limit: page.limit },
      timeoutMs: this.timeoutMs,
    });
  }

  /** Every active document of the tenant, page by page (newest first as they are listed). */
  async *allDocuments(context: ServiceCallContext, pageSize = 100): AsyncGenerator<RetrievalDocumentView> {
    for (let offset = 0; ; offset += pageSize) {
      const page = await this.documents(context, { limit: pageSize, offset });
      yield* page.documents;
      if (page.documents.length < pageSize || offset + pageSize >= page.total) return;
    }
  }

  /** Every chunk of a document in order, page by page. */
  async *allChunks(
    context: ServiceCallContext,
    documentId: string,
    pageSize = 100,
  ): AsyncGenerator<RetrievalChunksPage['chunks'][number]> {
    let after = -1;
    for (;;) {
      const page = await this.chunks(context, documentId, { after, limit: pageSize });
      yield* page.chunks;
      if (page.next_after === null) return;
      after = page.next_after;
    }
  }

  private endpoint() {
    return { baseUrl: this.baseUrl, identity: this.identity };
  }
}
