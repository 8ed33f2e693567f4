// The only code that reads and writes ocr_jobs, ocr_reviews and ocr_cache. Every read takes the
// tenant id; a job's result, its cache entry and its `ocr_extract` audit event commit together.
import { OCR_JOB_COMPLETED } from '../../platform/contracts/ingestion.events';
import { noticeWriter } from '../../platform/outbox/notice.writer';
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import type { AuditEventInput } from '../../platform/outbox/outbox.writer';
import { outboxWriter } from '../../platform/outbox/outbox.writer';
import type {
  CacheEntry,
  ExtractedFields,
  JobStatus,
  OcrJob,
  OcrReview,
  OcrStats,
  PageResult,
  Tier,
} from './ocr.types';
import type { SqlQuery } from '../../platform/db/sql';

export interface NewJob {
  tenantId: string;
  userId: string | null;
  documentHash: string;
  filename: string | null;
  mimeType: string;
  status: JobStatus;
  pageCount: number;
  indexInRag: boolean;
}

export interface JobResult {
  status: JobStatus;
  tierUsed: Tier | null;
  confidenceScore: number | null;
  extractedText: string | null;
  extractedFields: ExtractedFields | null;
  pages: PageResult[];
  pageCount: number;
  pagesDone: number;
  processingTimeMs: number;
  notes: string[];
  error?: string | null;
  cacheHit?: boolean;
}

/** Who asked, for the cache hit's `ocr_extract` event (its data comes from the entry). */
export interface CacheHitAudit {
  userId: string | null;
  correlationId: string | null;
  idempotencyKey: string;
}

export interface ReviewInput {
  reviewerId: string | null;
  correctedText: string;
  correctedFields: ExtractedFields | null;
  confidenceAfterReview: number;
}

export interface OcrStore {
  createJob(job: NewJob, result?: JobResult, event?: AuditEventInput): Promise<OcrJob>;
  job(tenantId: string, id: string): Promise<OcrJob | null>;
  /** The tenant's jobs among `ids` (any order; ids of another tenant are absent): two statements. */
  jobs(tenantId: string, ids: readonly string[]): Promise<OcrJob[]>;
  progress(
    tenantId: string,
    id: string,
    patch: { status?: JobStatus; pagesDone?: number; pages?: PageResult[] },
  ): Promise<void>;
  /**
   * The job's result, the cache entry (when given), the audit event and the `ocr.job_completed`
   * notice, in one transaction; only
   * while the job still runs (a job the sweep failed as interrupted keeps that end).
   */
  finish(tenantId: string, id: string, result: JobResult, cache: boolean, event: AuditEventInput): Promise<OcrJob>;
  /** Adds a line to the job's notes (what happened after it ended, such as the hand-off to retrieval). */
  addNote(tenantId: string, id: string, note: string): Promise<void>;
  /** The service's own sweep, over every tenant: running jobs whose lease ran out, oldest first. */
  expiredJobs(limit: number): Promise<OcrJob[]>;
  /** Fails a job whose lease ran out, with its audit event; null when it moved on meanwhile. */
  interrupt(tenantId: string, id: string, event: AuditEventInput): Promise<OcrJob | null>;
  /** Stores the review, completes the job, writes the correction into the cache. Null when the job is not awaiting review. */
  review(tenantId: string, id: string, input: ReviewInput, event: AuditEventInput): Promise<OcrJob | null>;
  cached(tenantId: string, documentHash: string): Promise<CacheEntry | null>;
  /**
   * A duplicate upload answered from the cache in one statement: one primary-key lookup of the
   * tenant's entry, which counts the hit, writes the completed job (text, fields and pages copied
   * inside the database, never through the service) and its `ocr_extract` audit event (tier and
   * confidence from the entry). Null on a miss, with nothing written.
   */
  answerFromCache(job: NewJob, audit: CacheHitAudit): Promise<OcrJob | null>;
  reviewQueue(tenantId: string, limit: number): Promise<OcrJob[]>;
  stats(tenantId: string | null): Promise<OcrStats>;
}

type JobRow = Prisma.OcrJobGetPayload<object>;
type ReviewRow = Prisma.OcrReviewGetPayload<object>;
type CacheRow = Prisma.OcrCacheGetPayload<object>;

const json = (v: unknown) => v as Prisma.InputJsonValue;

function reviewOf(r: ReviewRow): OcrReview {
  return {
    id: r.id,
    jobId: r.jobId,
    reviewerId: r.reviewerId,
    correctedText: r.correctedText,
    correctedFields: (r.correctedFields as ExtractedFields | null) ?? null,
    confidenceAfterReview: r.confidenceAfterReview,
    createdAt: r.createdAt,
  };
}

function jobOf(r: JobRow, review: ReviewRow | null): OcrJob {
  return {
    id: r.id,
    tenantId: r.tenantId,
    userId: r.userId,
    documentHash: r.documentHash.trim(),
    filename: r.filename,
    mimeType: r.mimeType,
    status: r.status as JobStatus,
    tierUsed: (r.tierUsed as Tier | null) ?? null,
    confidenceScore: r.confidenceScore,
    extractedText: r.extractedText,
    extractedFields: (r.extractedFields as ExtractedFields | null) ?? null,
    pages: r.pages as unknown as PageResult[],
    pageCount: r.pageCount,
    pagesDone: r.pagesDone,
    processingTimeMs: r.processingTimeMs,
    notes: r.notes as string[],
    error: r.error,
    cacheHit: r.cacheHit,
    indexInRag: r.indexInRag,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    completedAt: r.completedAt,
    review: review ? reviewOf(review) : null,
  };
}

function cacheOf(r: CacheRow): CacheEntry {
  return {
    documentHash: r.documentHash.trim(),
    jobId: r.jobId,
    extractedText: r.extractedText,
    extractedFields: (r.extractedFields as ExtractedFields | null) ?? null,
    tierUsed: r.tierUsed as Tier,
    confidenceScore: r.confidenceScore,
    pages: r.pages as unknown as PageResult[],
    pageCount: r.pageCount,
    hitCount: r.hitCount,
    lastAccessedAt: r.lastAccessedAt,
    createdAt: r.createdAt,
  };
}

function resultData(result: JobResult) {
  const done = result.status === 'completed' || result.status === 'review' || result.status === 'failed';
  return {
    status: result.status,
    tierUsed: result.tierUsed,
    confidenceScore: result.confidenceScore,
    extractedText: result.extractedText,
    extractedFields: result.extractedFields === null ? undefined : json(result.extractedFields),
    pages: json(result.pages),
    pageCount: result.pageCount,
    pagesDone: result.pagesDone,
    processingTimeMs: Math.round(result.processingTimeMs),
    notes: json(result.notes),
    error: result.error ?? null,
    cacheHit: result.cacheHit ?? false,
    completedAt: done ? new Date() : null,
  };
}

const RUNNING: JobStatus[] = ['pending', 'processing'];
const CACHE_NOTES = ['answered from the cache'];
/** The audit event type (the service's OCR_EXTRACT_EVENT; the store cannot import the service). */
const CACHE_HIT_EVENT = 'ocr_extract';

/** ocr_jobs as the cache hit's statement returns it (column names, JSON already parsed). */
interface CacheHitRow {
  id: string;
  tenant_id: string;
  user_id: string | null;
  document_hash: string;
  filename: string | null;
  mime_type: string;
  tier_used: string;
  confidence_score: number;
  extracted_text: string;
  extracted_fields: ExtractedFields | null;
  pages: PageResult[];
  page_count: number;
  pages_done: number;
  processing_time_ms: number;
  notes: string[];
  index_in_rag: boolean;
  created_at: Date;
  updated_at: Date;
  completed_at: Date;
}
export const INTERRUPTED = 'interrupted: the process running it stopped; upload the file again';

/** `leaseMs`: how long a running job may go without a page done before it counts as interrupted. */
export function prismaOcrStore(prisma: PrismaClient, options: { leaseMs: number } = { leaseMs: 300_000 }): OcrStore {
  const lease = () => new Date(Date.now() + options.leaseMs);
  const latestReview = (tenantId: string, jobId: string) =>
    prisma.ocrReview.findFirst({ where: { tenantId, jobId }, orderBy: { createdAt: 'desc' } });
  const store: OcrStore = {
    async createJob(job, result, event) {
      const data = {
        id: randomUUID(),
        ...job,
        ...(result ? resultData(result) : {}),
        leaseUntil: RUNNING.includes(result?.status ?? job.status) ? lease() : null,
      };
      if (!event) return jobOf(await prisma.ocrJob.create({ data }), null);
      const [row] = await prisma.$transaction(async (tx) => {
        const created = await tx.ocrJob.create({ data });
        await outboxWriter(tx, 'ocr').append(event);
        return [created];
      });
      return jobOf(row, null);
    },
    async job(tenantId, id) {
      const row = await prisma.ocrJob.findFirst({ where: { id, tenantId } });
      if (!row) return null;
      return jobOf(row, row.status === 'completed' ? await latestReview(tenantId, id) : null);
    },
    async jobs(tenantId, ids) {
      if (ids.length === 0) return [];
      const rows = await prisma.ocrJob.findMany({ where: { tenantId, id: { in: [...ids] } } });
      const completed = rows.filter((r) => r.status === 'completed').map((r) => r.id);
      const reviews =
        completed.length === 0
          ? []
          : await prisma.ocrReview.findMany({
              where: { tenantId, jobId: { in: completed } },
              orderBy: { createdAt: 'desc' },
            });
      // Newest first, so the first review seen for a job is its latest (as job() reads it).
      const latest = new Map<string, ReviewRow>();
      for (const r of reviews) if (!latest.has(r.jobId)) latest.set(r.jobId, r);
      return rows.map((r) => jobOf(r, r.status === 'completed' ? (latest.get(r.id) ?? null) : null));
    },
    async progress(tenantId, id, patch) {
      await prisma.ocrJob.updateMany({
        where: { id, tenantId, status: { in: RUNNING } },
        data: {
          leaseUntil: lease(),
          ...(patch.status ? { status: patch.status } : {}),
          ...(patch.pagesDone !== undefined ? { pagesDone: patch.pagesDone } : {}),
          ...(patch.pages ? { pages: json(patch.pages) } : {}),
        },
      });
    },
    async finish(tenantId, id, result, cache, event) {
      const row = await prisma.$transaction(async (tx) => {
        const moved = await tx.ocrJob.updateMany({
          where: { id, tenantId, status: { in: RUNNING } },
          data: { ...resultData(result), leaseUntil: null },
        });
        const updated = (await tx.ocrJob.findFirst({ where: { id, tenantId } }))!;
        if (moved.count === 0) return updated;
        if (cache && result.extractedText !== null && result.tierUsed) {
          const entry = {
            jobId: id,
            extractedText: result.extractedText,
            extractedFields: result.extractedFields === null ? undefined : json(result.extractedFields),
            tierUsed: result.tierUsed,
            confidenceScore: result.confidenceScore ?? 0,
            pages: json(result.pages),
            pageCount: result.pageCount,
          };
          await tx.ocrCache.upsert({
            where: { tenantId_documentHash: { tenantId, documentHash: updated.documentHash } },
            create: { tenantId, documentHash: updated.documentHash, ...entry },
            update: entry,
          });
        }
        await outboxWriter(tx, 'ocr').append(event);
        if (result.status === 'completed' || result.status === 'review' || result.status === 'failed') {
          // ocr.job_completed commits with the job's end (the notice outbox; the service's relay publishes it).
          await noticeWriter(tx, 'ocr').append(
            OCR_JOB_COMPLETED,
            {
              tenant_id: tenantId,
              job_id: id,
              status: result.status,
              tier_used: result.tierUsed,
              confidence_score: result.confidenceScore,
              page_count: result.pageCount,
              at: new Date().toISOString(),
            },
            { tenantId, subject: `ocr-job/${id}`, correlationId: event.correlationId },
          );
        }
        return updated;
      });
      return jobOf(row, null);
    },
    async addNote(tenantId, id, note) {
      await prisma.$executeRaw`UPDATE ocr_jobs SET notes = notes || ${JSON.stringify([note])}::jsonb, updated_at = now() WHERE id = ${id}::uuid AND tenant_id = ${tenantId}`;
    },
    async expiredJobs(limit) {
      const rows = await prisma.ocrJob.findMany({
        where: { status: { in: RUNNING }, leaseUntil: { lt: new Date() } },
        orderBy: { createdAt: 'asc' },
        take: limit,
      });
      return rows.map((r) => jobOf(r, null));
    },
    async interrupt(tenantId, id, event) {
      return prisma.$transaction(async (tx) => {
        const moved = await tx.ocrJob.updateMany({
          where: { id, tenantId, status: { in: RUNNING }, leaseUntil: { lt: new Date() } },
          data: { status: 'failed', error: INTERRUPTED, leaseUntil: null, completedAt: new Date() },
        });
        if (moved.count === 0) return null;
        await outboxWriter(tx, 'ocr').append(event);
        return jobOf((await tx.ocrJob.findFirst({ where: { id, tenantId } }))!, null);
      });
    },
    async review(tenantId, id, input, event) {
      return prisma.$transaction(async (tx) => {
        // Only one review wins: the status moves from review to completed exactly once.
        const moved = await tx.ocrJob.updateMany({
          where: { id, tenantId, status: 'review' },
          data: {
            status: 'completed',
            tierUsed: 'tier3',
            extractedText: input.correctedText,
            confidenceScore: input.confidenceAfterReview,
            ...(input.correctedFields ? { extractedFields: json(input.correctedFields) } : {}),
            completedAt: new Date(),
          },
        });
        if (moved.count === 0) return null;
        const review = await tx.ocrReview.create({
          data: {
            id: randomUUID(),
            tenantId,
            jobId: id,
            reviewerId: input.reviewerId,
            correctedText: input.correctedText,
            correctedFields: input.correctedFields ? json(input.correctedFields) : undefined,
            confidenceAfterReview: input.confidenceAfterReview,
          },
        });
        const job = (await tx.ocrJob.findFirst({ where: { id, tenantId } }))!;
        const entry = {
          jobId: id,
          extractedText: job.extractedText ?? '',
          extractedFields: job.extractedFields === null ? undefined : json(job.extractedFields),
          tierUsed: 'tier3',
          confidenceScore: input.confidenceAfterReview,
          pages: json(job.pages),
          pageCount: job.pageCount,
        };
        await tx.ocrCache.upsert({
          where: { tenantId_documentHash: { tenantId, documentHash: job.documentHash } },
          create: { tenantId, documentHash: job.documentHash, ...entry },
          update: entry,
        });
        await outboxWriter(tx, 'ocr').append(event);
        return jobOf(job, review);
      });
    },
    async cached(tenantId, documentHash) {
      const row = await prisma.ocrCache.findUnique({ where: { tenantId_documentHash: { tenantId, documentHash } } });
      return row ? cacheOf(row) : null;
    },
    async answerFromCache(job, audit) {
      // One statement, so one round trip and one implicit transaction: the UPDATE ... RETURNING
      // is the only read (the (tenant_id, document_hash) primary key); the job and the event are
      // written from its row, and neither is written when there is no row.
      const rows = await prisma.$queryRaw<CacheHitRow[]>`
        WITH hit AS (
          UPDATE ocr_cache SET hit_count = hit_count + 1, last_accessed_at = now()
          WHERE tenant_id = ${job.tenantId} AND document_hash = ${job.documentHash}
          RETURNING extracted_text, extracted_fields, tier_used, confidence_score, pages, page_count
        ), created AS (
          INSERT INTO ocr_jobs (id, tenant_id, user_id, document_hash, filename, mime_type, status, tier_used, confidence_score, extracted_text, extracted_fields,
                                pages, page_count, pages_done, processing_time_ms, notes, cache_hit, index_in_rag, completed_at, updated_at)
          SELECT ${randomUUID()}::uuid, ${job.tenantId}, ${job.userId}, ${job.documentHash}, ${job.filename}, ${job.mimeType}, 'completed', tier_used, confidence_score,
                 extracted_text, extracted_fields, pages, page_count, page_count, 0, ${JSON.stringify(CACHE_NOTES)}::jsonb, true, ${job.indexInRag}, now(), now()
          FROM hit
          RETURNING *
        ), audited AS (
          INSERT INTO outbox_events (service, tenant_id, event_type, event_data, user_id, correlation_id, description, idempotency_key)
          SELECT 'ocr', ${job.tenantId}, ${CACHE_HIT_EVENT},
                 jsonb_build_object('document_hash', ${job.documentHash}::text, 'tier_used', tier_used, 'confidence', confidence_score, 'page_count', page_count, 'cache_hit', true),
                 ${audit.userId}, ${audit.correlationId}, 'OCR cache hit (' || tier_used || ')', ${audit.idempotencyKey}
          FROM hit
        )
        SELECT * FROM created`;
      const r = rows[0];
      if (!r) return null;
      return {
        id: r.id,
        tenantId: r.tenant_id,
        userId: r.user_id,
        documentHash: r.document_hash.trim(),
        filename: r.filename,
        mimeType: r.mime_type,
        status: 'completed',
        tierUsed: r.tier_used as Tier,
        confidenceScore: r.confidence_score,
        extractedText: r.extracted_text,
        extractedFields: r.extracted_fields,
        pages: r.pages,
        pageCount: r.page_count,
        pagesDone: r.pages_done,
        processingTimeMs: r.processing_time_ms,
        notes: r.notes,
        error: null,
        cacheHit: true,
        indexInRag: r.index_in_rag,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        completedAt: r.completed_at,
        review: null,
      };
    },
    async reviewQueue(tenantId, limit) {
      const rows = await prisma.ocrJob.findMany({
        where: { tenantId, status: 'review' },
        orderBy: { createdAt: 'asc' },
        take: limit,
      });
      return rows.map((r) => jobOf(r, null));
    },
    async stats(tenantId) {
      const where = tenantId === null ? {} : { tenantId };
      const [byStatus, byTier, agg, cache, fromCache, scores] = await Promise.all([
        prisma.ocrJob.groupBy({ by: ['status'], where, _count: { _all: true } }),
        prisma.ocrJob.groupBy({ by: ['tierUsed'], where, _count: { _all: true } }),
        prisma.ocrJob.aggregate({
          where: { ...where, cacheHit: false, confidenceScore: { not: null } },
          _avg: { confidenceScore: true, processingTimeMs: true },
        }),
        prisma.ocrCache.aggregate({ where, _count: { _all: true }, _sum: { hitCount: true } }),
        prisma.ocrJob.count({ where: { ...where, cacheHit: true } }),
        // One row per distinct score, banded below: the console's confidence chart.
        prisma.ocrJob.groupBy({
          by: ['confidenceScore'],
          where: { ...where, cacheHit: false, confidenceScore: { not: null } },
          _count: { _all: true },
        }),
      ]);
      const confidenceHistogram = new Array<number>(10).fill(0);
      for (const s of scores) {
        const band = Math.min(9, Math.max(0, Math.floor((s.confidenceScore ?? 0) * 10)));
        confidenceHistogram[band]! += s._count._all;
      }
      const statuses = Object.fromEntries(byStatus.map((s) => [s.status, s._count._all]));
      return {
        tenantId,
        totalJobs: byStatus.reduce((a, s) => a + s._count._all, 0),
        byStatus: statuses,
        tierUsage: Object.fromEntries(
          byTier.filter((t) => t.tierUsed !== null).map((t) => [t.tierUsed!, t._count._all]),
        ),
        cache: { entries: cache._count._all, hits: cache._sum.hitCount ?? 0, jobsAnsweredFromCache: fromCache },
        reviewQueue: statuses.review ?? 0,
        averageConfidence: agg._avg.confidenceScore,
        averageProcessingTimeMs: agg._avg.processingTimeMs,
        confidenceHistogram,
      };
    },
  };
  return store;
}

/**
 * Retention (platform/retention, record type `ocr_job`): deletes at most `limit` of the tenant's
 * finished jobs created before `cutoff` (not those of `heldUsers`), with their reviews and the
 * cache entries they filled; how many jobs and cache entries went. Jobs still running are kept.
 */
export async function purgeOcrJobs(
  q: SqlQuery,
  tenantId: string,
  cutoff: Date,
  heldUsers: readonly string[],
  limit: number,
): Promise<number> {
  const jobs = await q.query<{ id: string }>(
    `DELETE FROM ocr_jobs WHERE id IN (
       SELECT id FROM ocr_jobs WHERE tenant_id = $1 AND created_at < $2 AND status NOT IN ('pending', 'processing')
         AND (user_id IS NULL OR NOT (user_id = ANY($3::text[])))
       ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING id::text`,
    [tenantId, cutoff, [...heldUsers], limit],
  );
  const ids = jobs.rows.map((r) => r.id);
  if (ids.length > 0)
    await q.query(`DELETE FROM ocr_reviews WHERE tenant_id = $1 AND job_id = ANY($2::uuid[])`, [tenantId, ids]);
  // The cache entries these jobs filled, and old entries whose job went before.
  const cache = await q.query(
    `DELETE FROM ocr_cache c WHERE c.tenant_id = $1 AND (c.job_id = ANY($2::uuid[])
       OR (c.created_at < $3 AND NOT EXISTS (SELECT 1 FROM ocr_jobs j WHERE j.id = c.job_id)))`,
    [tenantId, ids, cutoff],
  );
  return ids.length + cache.rowCount;
}

/**
 * The OCR queue's depth for /metrics: jobs pending or processing, by status, over every tenant
 * (a count, no tenant data; the gauge has no tenant label).
 */
export async function countQueuedOcrJobs(q: SqlQuery): Promise<Record<string, number>> {
  const res = await q.query<{ status: string; n: number }>(
    `SELECT status, count(*)::float8 AS n FROM ocr_jobs WHERE status IN ('pending', 'processing') GROUP BY status`,
  );
  const counts: Record<string, number> = { pending: 0, processing: 0 };
  for (const r of res.rows) counts[r.status] = Number(r.n);
  return counts;
}
