// Typed client of the retrieval service's ingest route (spec 02: POST /v1/rag/ingest, "ingest a
// document or URL with scope"; payload not given by the spec, so the body is this platform's:
// title, content, source, metadata and the scope fields). Used by OCR to index extracted text.
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

export class RetrievalClient {
  constructor(private readonly baseUrl: string, private readonly timeoutMs = 15_000) {}

  async ingest(tenantId: string, doc: IngestDocument, forwarding: { token?: string; correlationId?: string } = {}): Promise<IngestReceipt> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-tenant-id': tenantId };
    if (forwarding.token) headers.authorization = `Bearer ${forwarding.token}`;
    if (forwarding.correlationId) headers['x-correlation-id'] = forwarding.correlationId;
    const response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/v1/rag/ingest`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: doc.title, content: doc.content, source: doc.source, level: doc.level ?? 'platform', suite_id: doc.suiteId, module_id: doc.moduleId, metadata: doc.metadata ?? {},
      }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON */ }
    if (!response.ok) throw new Error(`retrieval ingest answered ${response.status}`);
    return { status: response.status, body };
  }
}
