// The retrieval domain's records and inputs, in the spec's terms (spec 02: rag_documents,
// rag_chunks, rag_query_cache, rag_conversations, rag_messages; ingestion jobs are ours).

export const LEVELS = ['platform', 'suite', 'module', 'entity'] as const;
export type Level = (typeof LEVELS)[number];
export const ACCESS_LEVELS = ['internal', 'external', 'public'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** suite, module and entity ids of a query or document (any may be absent). */
export interface Scope {
  suiteId?: string;
  moduleId?: string;
  entityId?: string;
}

export interface RagDocument {
  id: string;
  tenantId: string;
  level: Level;
  suiteId: string | null;
  moduleId: string | null;
  entityId: string | null;
  title: string;
  description: string | null;
  sourceType: string | null;
  fileSize: number | null;
  accessLevel: AccessLevel;
  status: 'active' | 'deleted';
  docMetadata: Record<string, unknown>;
  contentHash: string;
  chunksCount: number;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RetrievedChunk {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  level: Level;
  content: string;
  heading: string | null;
  /** Cosine similarity with the level's context-priority boost, clamped to [0, 1]. */
  score: number;
  similarity: number;
}

export interface IngestInput extends Scope {
  title: string;
  level: Level;
  description?: string;
  accessLevel: AccessLevel;
  sourceType: string;
  fileSize: number;
  text: string;
  metadata?: Record<string, unknown>;
}

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface IngestJob {
  id: string;
  tenantId: string;
  status: JobStatus;
  percent: number;
  stage: string | null;
  documentId: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Conversation {
  id: string;
  tenantId: string;
  userId: string | null;
  context: Scope;
  status: 'open' | 'ended';
  createdAt: Date;
  updatedAt: Date;
  messages: Message[];
}

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  chunksUsed: number | null;
  createdAt: Date;
}

export interface CachedAnswer {
  id: string;
  answer: string;
  chunksUsed: number;
  documentSources: string[];
  model: string | null;
  tokensUsed: number;
  hitCount: number;
  similarity: number;
}
