// Chunks with given vectors straight through the document store (no reader, no embedder), for the
// retrieval tests about the vector indexes: one platform-level document per call.
import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '../../platform/db/sql';
import { createDocumentStore } from '../../subgraphs/rag/document.store';
import type { Chunk } from '../../subgraphs/rag/ingestion/chunker';
import type { ScopeFilter } from '../../subgraphs/rag/chunk-search.store';

export async function addChunks(
  sql: SqlExecutor,
  tenantId: string,
  count: number,
  vector: () => number[],
): Promise<void> {
  const list: Chunk[] = Array.from({ length: count }, (_, i) => ({
    ord: i,
    content: `chunk ${i} of ${tenantId}`,
    heading: null,
    tokenCount: 4,
    contentHash: randomUUID().replace(/-/g, ''),
  }));
  await createDocumentStore(sql).insert(
    {
      tenantId,
      level: 'platform',
      suiteId: null,
      moduleId: null,
      entityId: null,
      title: `${tenantId} doc`,
      description: null,
      sourceType: 'text/plain',
      fileSize: 1,
      accessLevel: 'internal',
      metadata: {},
      contentHash: randomUUID(),
      createdBy: null,
    },
    list,
    list.map(vector),
    (documentId) => ({
      tenantId,
      eventType: 'rag_ingest',
      eventData: { document_id: documentId },
      userId: null,
      correlationId: null,
      idempotencyKey: randomUUID(),
    }),
  );
}

/** The platform level of a tenant, every access level. */
export const platformScope = (tenantId: string): ScopeFilter => ({
  tenantId,
  levels: ['platform'],
  scope: {},
  accessLevels: ['internal', 'external', 'public'],
});
