// The OCR service's documented REST routes (spec 02, port 8137) as thin adapters over
// subgraphs/ocr: POST /extract (multipart `file`, optional `index_in_rag`, `tenant_id`), GET
// /jobs/{job_id}, PUT /jobs/{job_id}/review, GET /cache/{document_hash}, GET /stats, GET /health.
// The cache and stats reads answer the original service's shapes (below).
// Errors as FastAPI shapes them; an upload that is not an image or PDF is a 415.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { InputError } from '../../platform/errors/domain-errors';
import { callerOf } from '../../platform/http/caller';
import type { OcrService } from '../../subgraphs/ocr/ocr.service';
import type { CacheEntry, ExtractedFields, OcrJob, OcrStats } from '../../subgraphs/ocr/ocr.types';
import { CacheParams, JobParams, ReviewBody, TenantQuery } from './ocr.schemas';

export function jobJson(j: OcrJob) {
  return {
    job_id: j.id,
    id: j.id,
    tenant_id: j.tenantId,
    user_id: j.userId,
    document_hash: j.documentHash,
    filename: j.filename,
    mime_type: j.mimeType,
    status: j.status,
    tier_used: j.tierUsed,
    confidence_score: j.confidenceScore,
    extracted_text: j.extractedText,
    extracted_fields: j.extractedFields,
    pages: j.pages,
    progress: { pages_done: j.pagesDone, page_count: j.pageCount },
    processing_time_ms: j.processingTimeMs,
    cache_hit: j.cacheHit,
    notes: j.notes,
    error: j.error,
    index_in_rag: j.indexInRag,
    created_at: j.createdAt,
    completed_at: j.completedAt,
    review: j.review
      ? {
          id: j.review.id,
          reviewer_id: j.review.reviewerId,
          confidence_after_review: j.review.confidenceAfterReview,
          created_at: j.review.createdAt,
        }
      : null,
  };
}

// GET /cache/{document_hash} in the original service's shape: `cache_hit` says whether the
// tenant's cache holds the document, and a miss is a 200 with cache_hit false and the result
// fields null, as the original answers it (so its clients read one shape). `cached_at` is the
// original's name for created_at; `hit` is ours, kept.
export function cacheJson(c: CacheEntry) {
  return {
    cache_hit: true,
    document_hash: c.documentHash,
    hit: true,
    job_id: c.jobId,
    extracted_text: c.extractedText,
    extracted_fields: c.extractedFields,
    tier_used: c.tierUsed,
    confidence_score: c.confidenceScore,
    pages: c.pages,
    page_count: c.pageCount,
    hit_count: c.hitCount,
    last_accessed_at: c.lastAccessedAt,
    created_at: c.createdAt,
    cached_at: c.createdAt,
  };
}

export function cacheMissJson(documentHash: string) {
  return {
    cache_hit: false,
    document_hash: documentHash,
    hit: false,
    job_id: null,
    extracted_text: null,
    extracted_fields: null,
    tier_used: null,
    confidence_score: null,
    pages: null,
    page_count: null,
    hit_count: null,
    last_accessed_at: null,
    created_at: null,
    cached_at: null,
  };
}

// GET /stats: spec 02 names "tier usage" (tier_usage); where it is silent the original service's
// names (total_jobs, jobs_by_status, jobs_by_tier, average_confidence, average_processing_time_ms,
// cache_hit_rate) are served, and our richer members kept beside them. cache_hit_rate is the share
// of extract requests answered from the cache (0 with no jobs), a fraction like confidence_score.
export function statsJson(s: OcrStats) {
  return {
    tenant_id: s.tenantId,
    total_jobs: s.totalJobs,
    jobs_by_status: s.byStatus,
    jobs_by_tier: s.tierUsage,
    average_confidence: s.averageConfidence,
    average_processing_time_ms: s.averageProcessingTimeMs,
    cache_hit_rate: s.totalJobs === 0 ? 0 : s.cache.jobsAnsweredFromCache / s.totalJobs,
    by_status: s.byStatus,
    tier_usage: s.tierUsage,
    cache: { entries: s.cache.entries, hits: s.cache.hits, jobs_answered_from_cache: s.cache.jobsAnsweredFromCache },
    review_queue: s.reviewQueue,
  };
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

interface Upload {
  bytes: Buffer | null;
  filename: string | null;
  fields: Record<string, string>;
}

async function readUpload(request: FastifyRequest): Promise<Upload> {
  const upload: Upload = { bytes: null, filename: null, fields: {} };
  if (!request.isMultipart()) return upload;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname === 'file' && upload.bytes === null) {
        upload.bytes = await part.toBuffer();
        upload.filename = part.filename || null;
      } else {
        await part.toBuffer();
      }
    } else {
      upload.fields[part.fieldname] = String(part.value);
    }
  }
  return upload;
}

export function registerOcrRoutes(
  routes: FastifyInstance,
  ocr: OcrService,
  options: { version: string; maxBytes: number },
): void {
  void routes.register(multipart, { limits: { fileSize: options.maxBytes, files: 2, fields: 10, fieldSize: 1024 } });

  routes.get('/', { config: { auth: 'public' }, schema: { tags: ['ocr'], summary: 'Service metadata' } }, async () => ({
    service: 'ocr',
    version: options.version,
    description:
      'Text and key fields from scans, photos and PDFs: tier 1 tesseract with preprocessing, tier 2 vision model, tier 3 human review, per-tenant cache',
    endpoints: [
      'POST /extract',
      'GET /jobs/{job_id}',
      'PUT /jobs/{job_id}/review',
      'GET /cache/{document_hash}',
      'GET /stats',
      'GET /health',
      'GET /healthz',
      'GET /readyz',
    ],
  }));

  routes.post(
    '/extract',
    {
      schema: {
        tags: ['ocr'],
        summary:
          'Submit a document (multipart/form-data: file; optional index_in_rag, tenant_id); answers the job id, status and document_hash',
        consumes: ['multipart/form-data'],
      },
    },
    async (request, reply) => {
      const upload = await readUpload(request);
      if (!upload.bytes) throw InputError.of(['file'], 'Field required', 'missing');
      // A file that is neither an image nor a PDF throws UnsupportedDocumentError, an
      // UnsupportedMediaTypeError the platform's error handler answers with 415.
      const job = await ocr.extract(callerOf(request), {
        bytes: upload.bytes,
        filename: upload.filename,
        tenantId: upload.fields.tenant_id,
        indexInRag: truthy(upload.fields.index_in_rag),
        token: bearerToken(request.headers.authorization) ?? undefined,
      });
      return reply.code(job.status === 'completed' ? 200 : 202).send(jobJson(job));
    },
  );

  routes.get<{ Params: { job_id: string }; Querystring: { tenant_id?: string } }>(
    '/jobs/:job_id',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: ['ocr'],
        summary: 'Job status and results (a reviewed job answers the correction)',
        params: JobParams,
        querystring: TenantQuery,
      },
    },
    async (request) => jobJson(await ocr.job(callerOf(request), request.params.job_id, request.query.tenant_id)),
  );

  routes.put<{
    Params: { job_id: string };
    Body: {
      corrected_text: string;
      corrected_fields?: ExtractedFields | null;
      confidence_after_review?: number;
      tenant_id?: string;
    };
  }>(
    '/jobs/:job_id/review',
    {
      schema: {
        tags: ['ocr'],
        summary: 'Submit human corrections of a job awaiting review; completes it',
        params: JobParams,
        body: ReviewBody,
      },
    },
    async (request) => {
      const b = request.body;
      return jobJson(
        await ocr.review(callerOf(request), request.params.job_id, {
          correctedText: b.corrected_text,
          correctedFields: b.corrected_fields ?? null,
          confidenceAfterReview: b.confidence_after_review,
          tenantId: b.tenant_id,
        }),
      );
    },
  );

  routes.get<{ Params: { document_hash: string }; Querystring: { tenant_id?: string } }>(
    '/cache/:document_hash',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: ['ocr'],
        summary:
          "Cached result of a document (by SHA-256) in the caller's tenant: cache_hit true with the result, or cache_hit false with the result fields null",
        params: CacheParams,
        querystring: TenantQuery,
      },
    },
    async (request) => {
      const entry = await ocr.lookupCache(callerOf(request), request.params.document_hash, request.query.tenant_id);
      return entry ? cacheJson(entry) : cacheMissJson(request.params.document_hash);
    },
  );

  routes.get<{ Querystring: { tenant_id?: string } }>(
    '/stats',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: ['ocr'],
        summary:
          'total_jobs, jobs_by_status, jobs_by_tier (= tier_usage), average_confidence, average_processing_time_ms, cache_hit_rate, cache hits and the review queue (?tenant_id= for one tenant)',
        querystring: TenantQuery,
      },
    },
    async (request) => statsJson(await ocr.stats(callerOf(request), request.query.tenant_id)),
  );
}
