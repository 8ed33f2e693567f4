// Context from the knowledge retrieval service (spec 02, port 8138), through its documented
// route POST /retrieve ({query, suite_id, module_id, entity_id, top_k, use_hybrid} -> {query, chunks:
// [{content, document_title, score, heading}], retrieval_time_ms}). The broker keeps chunks
// scoring at least 0.5 (spec 02's default threshold for the broker), top 5. When the service
// cannot be reached the answer goes on without context and says so; it never fails the request.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import {
  serviceRequest,
  ServiceCallError,
  type ServiceCallContext,
  type ServiceEndpoint,
} from '../../platform/clients/service-request';

export const RAG_THRESHOLD = 0.5;
export const RAG_TOP_K = 5;

export interface RetrievedChunk {
  content: string;
  document_title: string;
  score: number;
  heading: string | null;
}

export interface RetrievalScope {
  suiteId?: string;
  moduleId?: string;
  entityId?: string;
}

export type Retrieval = { available: true; chunks: RetrievedChunk[] } | { available: false; reason: string };

export class RetrievalSource {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the broker's, used for callers without a token (service-request.ts). */
  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
    identity?: DelegatedIdentity,
  ) {
    this.endpoint = { baseUrl, identity };
  }

  async retrieve(
    context: ServiceCallContext,
    query: string,
    scope: RetrievalScope,
    topK = RAG_TOP_K,
    threshold = RAG_THRESHOLD,
  ): Promise<Retrieval> {
    try {
      const answer = await serviceRequest<{ chunks?: unknown }>(this.endpoint, 'retrieve', context, {
        method: 'POST',
        body: {
          query,
          suite_id: scope.suiteId,
          module_id: scope.moduleId,
          entity_id: scope.entityId,
          top_k: topK,
          use_hybrid: true,
        },
        timeoutMs: this.timeoutMs,
      });
      const chunks = (Array.isArray(answer?.chunks) ? answer.chunks : [])
        .filter(
          (c): c is RetrievedChunk =>
            typeof c === 'object' &&
            c !== null &&
            typeof (c as RetrievedChunk).content === 'string' &&
            typeof (c as RetrievedChunk).score === 'number',
        )
        .filter((c) => c.score >= threshold)
        .sort((a, b) => b.score - a.score)
        .slice(0, topK)
        .map((c) => ({
          content: c.content,
          document_title: typeof c.document_title === 'string' ? c.document_title : 'untitled',
          score: c.score,
          heading: typeof c.heading === 'string' ? c.heading : null,
        }));
      return { available: true, chunks };
    } catch (err) {
      if (!(err instanceof ServiceCallError)) throw err;
      return { available: false, reason: err.status === undefined ? 'unreachable' : `answered ${err.status}` };
    }
  }
}
