// The retrieval service's settings: spec 02's variables (DEFAULT_TOP_K, MAX_TOP_K, CHUNK_SIZE,
// CHUNK_OVERLAP, CACHE_SIMILARITY_THRESHOLD, CACHE_TTL_HOURS, EMBEDDING_MODEL, REQUIRE_AUTH,
// PLATFORM_AI_BROKER_URL) and ours. The database is the platform's (DATABASE_URL, or PGlite).
import path from 'node:path';
import { ConfigError, readInt, readOptional, readString, readUrl } from '../../platform/config/env';
import { serviceUrl } from '../../platform/config/platform.config';
import type { Env, ServiceManifest } from '../../platform/service';

export interface RagConfig {
  requireAuth: boolean;
  defaultTopK: number;
  maxTopK: number;
  chunkSize: number;
  chunkOverlap: number;
  cacheSimilarityThreshold: number;
  cacheTtlHours: number;
  embedding: { model: string; url?: string; apiKey?: string; cacheDir: string; modelDir: string };
  aiBrokerUrl: string;
  ocrUrl: string;
  /** Largest upload, bytes (RAG_MAX_UPLOAD_BYTES, default 20 MiB). */
  maxUploadBytes: number;
  /** A scope with at most this many chunks is searched exactly, without the HNSW index. */
  exactSearchMaxRows: number;
  efSearch: number;
  /** The full-text side ranks at most this many candidate chunks (RAG_TEXT_CANDIDATES; text-search.rules.ts). */
  textCandidates: number;
  /** Words added to a hybrid search's full-text side (RAG_QUERY_EXPANSION): `wordnet` (default) or `off`. */
  queryExpansion: 'wordnet' | 'off';
  /** Chunks within this cosine of the best one are ordered most specific level first. */
  cascadeMargin: number;
  /** A tenant with this many active chunks gets its own HNSW index (RAG_TENANT_INDEX_MIN_CHUNKS; 0: never). */
  tenantIndexMinChunks: number;
  /** An ingestion job's lease (RAG_JOB_LEASE_MS): renewed at every step; once it runs out, another copy resumes the job. */
  jobLeaseMs: number;
  /** Runs of one ingestion job before it fails (RAG_JOB_MAX_ATTEMPTS). */
  jobMaxAttempts: number;
  /** How often abandoned jobs are resumed and expired cache answers purged (RAG_MAINTENANCE_INTERVAL_MS). */
  maintenanceIntervalMs: number;
}

function readFraction(env: Env, name: string, fallback: number): number {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new ConfigError(`${name} must be a number in (0, 1], got '${raw}'`);
  return n;
}

function readExpansion(env: Env): 'wordnet' | 'off' {
  const raw = readString(env, 'RAG_QUERY_EXPANSION', 'wordnet');
  if (raw !== 'wordnet' && raw !== 'off')
    throw new ConfigError(`RAG_QUERY_EXPANSION must be 'wordnet' or 'off', got '${raw}'`);
  return raw;
}

export function loadRagConfig(
  env: Env,
  registry: readonly ServiceManifest[],
  platform: { requireAuth: boolean },
): RagConfig {
  const chunkSize = readInt(env, 'CHUNK_SIZE', 512, { min: 16, max: 8192 });
  const chunkOverlap = readInt(env, 'CHUNK_OVERLAP', 50, { min: 0, max: 4096 });
  if (chunkOverlap >= chunkSize) throw new ConfigError('CHUNK_OVERLAP must be smaller than CHUNK_SIZE');
  const maxTopK = readInt(env, 'MAX_TOP_K', 20, { min: 1, max: 1000 });
  const broker = registry.find((s) => s.name === 'ai-broker') ?? { name: 'ai-broker', port: 8085 };
  const ocr = registry.find((s) => s.name === 'ocr') ?? { name: 'ocr', port: 8137 };
  return {
    requireAuth: platform.requireAuth,
    defaultTopK: readInt(env, 'DEFAULT_TOP_K', 5, { min: 1, max: maxTopK }),
    maxTopK,
    chunkSize,
    chunkOverlap,
    cacheSimilarityThreshold: readFraction(env, 'CACHE_SIMILARITY_THRESHOLD', 0.95),
    cacheTtlHours: readInt(env, 'CACHE_TTL_HOURS', 24, { min: 1 }),
    embedding: {
      model: readString(env, 'EMBEDDING_MODEL', 'sif-glove'),
      url: readUrl(env, 'EMBEDDING_URL', ['http:', 'https:']),
      apiKey: readOptional(env, 'EMBEDDING_API_KEY'),
      cacheDir: path.resolve(readString(env, 'EMBEDDING_CACHE_DIR', '.data/embeddings')),
      modelDir: path.resolve(readString(env, 'EMBEDDING_MODEL_DIR', '.data/models')),
    },
    // Spec 02 names PLATFORM_AI_BROKER_URL; AI_BROKER_URL is the platform's derived name.
    aiBrokerUrl: readUrl(env, 'PLATFORM_AI_BROKER_URL', ['http:', 'https:']) ?? serviceUrl(env, broker),
    ocrUrl: serviceUrl(env, ocr),
    maxUploadBytes: readInt(env, 'RAG_MAX_UPLOAD_BYTES', 20 * 1024 * 1024, { min: 1024 }),
    exactSearchMaxRows: readInt(env, 'RAG_EXACT_SEARCH_MAX_ROWS', 300, { min: 0 }),
    efSearch: readInt(env, 'RAG_HNSW_EF_SEARCH', 200, { min: 1, max: 1000 }),
    textCandidates: readInt(env, 'RAG_TEXT_CANDIDATES', 500, { min: 20, max: 100_000 }),
    queryExpansion: readExpansion(env),
    cascadeMargin: readFraction(env, 'RAG_CASCADE_MARGIN', 0.1),
    tenantIndexMinChunks: readInt(env, 'RAG_TENANT_INDEX_MIN_CHUNKS', 20_000, { min: 0 }),
    jobLeaseMs: readInt(env, 'RAG_JOB_LEASE_MS', 60_000, { min: 100 }),
    jobMaxAttempts: readInt(env, 'RAG_JOB_MAX_ATTEMPTS', 3, { min: 1, max: 100 }),
    maintenanceIntervalMs: readInt(env, 'RAG_MAINTENANCE_INTERVAL_MS', 15_000, { min: 50 }),
  };
}
