// Typed client of the retrieval service's ingest route (spec 02: POST /v1/rag/ingest, "ingest a
// document or URL with scope"; payload not given by the spec, so the body is this platform's:
// title, content, source, metadata and the scope fields). Used by OCR to index extracted text.
import type { DelegatedIdentity } from '../auth/service-identity';
import { credentialHeaders } from './service-request';
import type { IngestDocument, IngestReceipt } from '../contracts/clients/retrieval.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { IngestDocument, IngestReceipt };

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
}
