// The OCR domain (spec 02, rules 1-8 of /extract): hash the upload; answer a tenant's cache hit
// at once; otherwise a job runs in the background: PDF text layer where present, tier 1
// (preprocessing + tesseract) for other pages, tier 2 (a vision model) when tier 1 is under 80%,
// and a job under 85% waits for a person's review (tier 3). The result, the cache entry and the
// `ocr_extract` audit event commit together; the text goes to retrieval when asked.
import { createHash, randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { actsForAnyTenant } from '../../platform/auth/tenant.rule';
import type { RetrievalClient } from '../../platform/clients/retrieval.client';
import { ConflictError, InputError, NotFoundError, PayloadTooLargeError } from '../../platform/errors/domain-errors';
import { isUuid } from '../../platform/ids';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { CorruptDocumentError, sniffDocument, UnsupportedDocumentError } from './document-kind';
import { extractFields } from './field-extractor';
import type { JobResult, OcrStore } from './ocr.store';
import type { CacheEntry, ExtractedFields, OcrJob, OcrStats, PageResult, Tier } from './ocr.types';
import { EncryptedDocumentError, type DocumentDecoder, type Rgba } from './document-decoder';
import { encodePng } from './png';
import type { PreprocessWorkers } from './preprocess.workers';
import type { TesseractPool } from './tesseract-pool';
import type { VisionReader } from './vision.reader';

export const OCR_EXTRACT_EVENT = 'ocr_extract';
/** Spec 02 limits: tier 1 -> tier 2 below 80%; a job below 85% is flagged for human review. */
export const ESCALATION_THRESHOLD = 0.8;
export const REVIEW_THRESHOLD = 0.85;

export { CorruptDocumentError, UnsupportedDocumentError };

export interface OcrLimits {
  maxBytes: number;
  /** Largest decoded page, in pixels (width x height from the header). */
  maxPixels: number;
  maxPages: number;
}

export interface ExtractInput {
  bytes: Buffer;
  filename: string | null;
  tenantId?: string;
  indexInRag?: boolean;
  /** Forwarded to retrieval with the text. */
  token?: string;
}

export interface ReviewRequest {
  tenantId?: string;
  correctedText: string;
  correctedFields?: ExtractedFields | null;
  confidenceAfterReview?: number;
}

/** A job's progress, as the subscription reports it. */
export type ProgressListener = (job: OcrJob) => void;

interface Page {
  page: number;
  text?: string;
  rgba?: Rgba;
}

export interface OcrDeps {
  store: OcrStore;
  engine: TesseractPool;
  /** Preprocessing in worker threads (off the event loop). */
  preprocess: PreprocessWorkers;
  vision: VisionReader | null;
  decoder: DocumentDecoder;
  access: TenantAccess;
  retrieval: RetrievalClient | null;
  limits: OcrLimits;
  onProgress?: ProgressListener;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export class OcrService {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: OcrDeps) {}

  get visionModel(): string | null {
    return this.deps.vision?.model ?? null;
  }

  async extract(caller: Caller, input: ExtractInput): Promise<OcrJob> {
    const tenantId = await this.deps.access.resolve(caller, input.tenantId, ['tenant_id'], 'ocr.extract');
    const { bytes } = input;
    if (bytes.length === 0) throw InputError.of(['file'], 'The file is empty');
    if (bytes.length > this.deps.limits.maxBytes)
      throw new PayloadTooLargeError(`The file is larger than ${this.deps.limits.maxBytes} bytes`);
    const documentHash = sha256(bytes);
    const kind = this.sniff(bytes);
    const userId = caller.auth?.username ?? null;
    const base = {
      tenantId,
      userId,
      documentHash,
      filename: input.filename,
      mimeType: kind.mimeType,
      indexInRag: input.indexInRag ?? false,
    };

    // The fast path: one statement finds the tenant's entry and records the hit, job and event.
    const hit = await this.deps.store.answerFromCache(
      { ...base, status: 'completed', pageCount: 0 },
      { userId, correlationId: caller.correlationId ?? null, idempotencyKey: randomUUID() },
    );
    if (hit) {
      void this.forward(caller, hit, input.token);
      return hit;
    }

    // Read enough now that a damaged or locked document is the caller's 422, not a failed job.
    let pages: Page[];
    if (kind.kind === 'image') {
      if (kind.width * kind.height > this.deps.limits.maxPixels) {
        throw new PayloadTooLargeError(
          `The image declares ${kind.width}x${kind.height} pixels, more than the ${this.deps.limits.maxPixels} allowed; it was not decoded`,
        );
      }
      pages = [{ page: 1, rgba: await this.decode(bytes) }];
    } else {
      pages = await this.readPdf(bytes);
    }
    const job = await this.deps.store.createJob({ ...base, status: 'pending', pageCount: pages.length });
    const work = this.process(caller, job, pages, input.token).catch(() => undefined);
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return job;
  }

  private sniff(bytes: Buffer) {
    try {
      return sniffDocument(bytes);
    } catch (err) {
      if (err instanceof CorruptDocumentError) throw InputError.of(['file'], err.message, 'value_error.corrupt');
      throw err;
    }
  }

  private async decode(bytes: Buffer): Promise<Rgba> {
    try {
      return await this.deps.decoder.image(bytes);
    } catch (err) {
      if (err instanceof CorruptDocumentError) throw InputError.of(['file'], err.message, 'value_error.corrupt');
      throw err;
    }
  }

  private async readPdf(bytes: Buffer): Promise<Page[]> {
    // An /Encrypt dictionary in the trailer means a protected document, even when its user
    // password is empty: refused rather than opened (the owner restricted it).
    if (bytes.includes('/Encrypt'))
      throw InputError.of(['file'], 'The PDF is encrypted; upload it without a password', 'value_error.encrypted');
    try {
      return await this.deps.decoder.pdf(bytes, {
        maxPages: this.deps.limits.maxPages,
        maxPixels: this.deps.limits.maxPixels,
      });
    } catch (err) {
      if (err instanceof EncryptedDocumentError)
        throw InputError.of(['file'], 'The PDF is encrypted; upload it without a password', 'value_error.encrypted');
      if (err instanceof CorruptDocumentError) throw InputError.of(['file'], err.message, 'value_error.corrupt');
      throw err;
    }
  }

  private event(
    caller: Caller,
    tenantId: string,
    documentHash: string,
    tier: Tier | null,
    confidence: number | null,
    pageCount: number,
    cacheHit: boolean,
    extra: Record<string, unknown> = {},
  ) {
    return auditEvent(caller, {
      tenantId,
      type: OCR_EXTRACT_EVENT,
      actor: caller.auth?.username ?? null,
      data: {
        document_hash: documentHash,
        tier_used: tier,
        confidence,
        page_count: pageCount,
        cache_hit: cacheHit,
        ...extra,
      },
      description: `OCR ${cacheHit ? 'cache hit' : 'extraction'} (${tier ?? 'no tier'})`,
    });
  }

  /**
   * Fails the jobs whose process died mid-way (no page done within the lease), each with its
   * `ocr_extract` event, so a client polling one gets an end and a reason. The uploaded bytes
   * are not kept, so such a job cannot be resumed: the client uploads the file again.
   */
  async failInterrupted(limit = 50): Promise<number> {
    let failed = 0;
    for (const job of await this.deps.store.expiredJobs(limit)) {
      const sweep: Caller = { correlationId: randomUUID() };
      const done = await this.deps.store.interrupt(
        job.tenantId,
        job.id,
        this.event(sweep, job.tenantId, job.documentHash, null, null, job.pageCount, false, {
          status: 'failed',
          interrupted: true,
        }),
      );
      if (done) {
        failed++;
        this.emit(job.tenantId, job.id);
      }
    }
    return failed;
  }

  /** The background part of a job: pages, tiers, result, cache, audit, hand-off. */
  private async process(caller: Caller, job: OcrJob, pages: Page[], token?: string): Promise<void> {
    const started = performance.now();
    const { store } = this.deps;
    const notes: string[] = [];
    const results: PageResult[] = [];
    try {
      await store.progress(job.tenantId, job.id, { status: 'processing' });
      this.emit(job.tenantId, job.id);
      // Pages run side by side up to the engine's size, so one long PDF uses every worker;
      // progress is written as each page ends, pages listed in order.
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(pages.length, this.deps.engine.workers) }, async () => {
          while (next < pages.length) {
            const page = pages[next++]!;
            results.push(await this.readPage(page, notes));
            results.sort((a, b) => a.page - b.page);
            await store.progress(job.tenantId, job.id, { pagesDone: results.length, pages: results });
            this.emit(job.tenantId, job.id);
          }
        }),
      );
      const text = results.map((r) => r.text).join('\n\n');
      const chars = results.reduce((a, r) => a + Math.max(1, r.text.length), 0);
      const confidence =
        Math.round((results.reduce((a, r) => a + r.confidence * Math.max(1, r.text.length), 0) / chars) * 1000) / 1000;
      const tier = highestTier(results);
      const status = confidence < REVIEW_THRESHOLD ? 'review' : 'completed';
      if (status === 'review')
        notes.push(`confidence ${confidence} is below ${REVIEW_THRESHOLD}: flagged for human review`);
      const result: JobResult = {
        status,
        tierUsed: tier,
        confidenceScore: confidence,
        extractedText: text,
        extractedFields: extractFields(text, confidence),
        pages: results,
        pageCount: pages.length,
        pagesDone: pages.length,
        processingTimeMs: performance.now() - started,
        notes,
      };
      const done = await store.finish(
        job.tenantId,
        job.id,
        result,
        status === 'completed',
        this.event(caller, job.tenantId, job.documentHash, tier, confidence, pages.length, false, { status }),
      );
      this.emit(job.tenantId, job.id);
      if (done.status === 'completed') await this.forward(caller, done, token);
    } catch (err) {
      notes.push('processing failed');
      await store
        .finish(
          job.tenantId,
          job.id,
          {
            status: 'failed',
            tierUsed: null,
            confidenceScore: null,
            extractedText: null,
            extractedFields: null,
            pages: results,
            pageCount: pages.length,
            pagesDone: results.length,
            processingTimeMs: performance.now() - started,
            notes,
            error: (err as Error).message,
          },
          false,
          this.event(caller, job.tenantId, job.documentHash, null, null, pages.length, false, { status: 'failed' }),
        )
        .catch(() => undefined);
      this.emit(job.tenantId, job.id);
    }
  }

  private async readPage(page: Page, notes: string[]): Promise<PageResult> {
    if (page.text !== undefined) return { page: page.page, text: page.text, confidence: 1, source: 'text_layer' };
    const prepared = await this.deps.preprocess.run(page.rgba!.data, page.rgba!.width, page.rgba!.height);
    const rgba: Rgba = { width: page.rgba!.width, height: page.rgba!.height, data: prepared.rgba };
    page.rgba = undefined; // the pixels now live in `rgba` only, freed with this page
    const report = prepared.report;
    const tier1 = await this.deps.engine.recognise(prepared.pgm);
    const preprocessing = {
      skew_degrees: report.skewDegrees,
      denoised: report.denoised,
      scale: Math.round(report.scale * 1000) / 1000,
    };
    const result: PageResult = {
      page: page.page,
      text: tier1.text,
      confidence: Math.round(tier1.confidence * 1000) / 1000,
      source: 'tier1',
      preprocessing,
    };
    if (result.confidence >= ESCALATION_THRESHOLD) return result;
    const { vision } = this.deps;
    if (!vision) {
      notes.push(
        `page ${page.page}: tier 1 confidence ${result.confidence} is below ${ESCALATION_THRESHOLD}, but no vision model is configured (OCR_VISION_MODEL and OPENAI_API_KEY): stayed on tier 1`,
      );
      return result;
    }
    try {
      const read = await vision.read(await encodePng(rgba));
      return {
        page: page.page,
        text: read.text,
        confidence: Math.round(read.confidence * 1000) / 1000,
        source: 'tier2',
        preprocessing,
      };
    } catch (err) {
      notes.push(
        `page ${page.page}: the vision model ${vision.model} failed (${(err as Error).name}): kept tier 1's text`,
      );
      return result;
    }
  }

  /** index_in_rag: the text to retrieval's ingest route; the outcome is kept in the job's notes. */
  private async forward(caller: Caller, job: OcrJob, token?: string): Promise<void> {
    const { retrieval } = this.deps;
    if (!job.indexInRag || !retrieval || !job.extractedText) return;
    let note: string;
    try {
      const receipt = await retrieval.ingest(
        job.tenantId,
        {
          title: job.filename ?? `OCR ${job.documentHash.slice(0, 12)}`,
          content: job.extractedText,
          source: `ocr:${job.id}`,
          metadata: {
            ocr_job_id: job.id,
            document_hash: job.documentHash,
            tier_used: job.tierUsed,
            confidence: job.confidenceScore,
          },
        },
        { token, correlationId: caller.correlationId },
      );
      const ingestJob = (receipt.body as { job_id?: unknown } | null)?.job_id;
      note = `sent to retrieval for indexing${typeof ingestJob === 'string' ? ` (ingestion job ${ingestJob})` : ''}`;
    } catch (err) {
      note = `index_in_rag: retrieval did not take the text (${(err as Error).message}); extract the file again with index_in_rag to retry`;
    }
    await this.deps.store.addNote(job.tenantId, job.id, note).catch(() => undefined);
    this.emit(job.tenantId, job.id);
  }

  private emit(tenantId: string, id: string): void {
    const listener = this.deps.onProgress;
    if (!listener) return;
    void this.deps.store.job(tenantId, id).then(
      (j) => j && listener(j),
      () => undefined,
    );
  }

  async job(caller: Caller, id: string, tenantId?: string): Promise<OcrJob> {
    const tenant = await this.deps.access.resolve(caller, tenantId, ['tenant_id'], 'ocr.jobs.read');
    const job = isUuid(id) ? await this.deps.store.job(tenant, id) : null;
    if (!job) throw new NotFoundError('Job not found');
    return job;
  }

  /** Several jobs of the caller's tenant in one batch (entity references); unknown or foreign ids are null. */
  async jobsByIds(caller: Caller, ids: readonly string[]): Promise<(OcrJob | null)[]> {
    const tenant = await this.deps.access.resolve(caller, undefined, ['tenant_id'], 'ocr.jobs.read');
    const found = new Map((await this.deps.store.jobs(tenant, ids.filter(isUuid))).map((j) => [j.id, j]));
    return ids.map((id) => found.get(id) ?? null);
  }

  async review(caller: Caller, id: string, input: ReviewRequest): Promise<OcrJob> {
    const tenant = await this.deps.access.resolve(caller, input.tenantId, ['tenant_id'], 'ocr.jobs.review');
    const job = isUuid(id) ? await this.deps.store.job(tenant, id) : null;
    if (!job) throw new NotFoundError('Job not found');
    if (job.status !== 'review') throw new ConflictError(`The job is ${job.status}, not awaiting review`);
    const confidence = input.confidenceAfterReview ?? 1;
    if (!(confidence >= 0 && confidence <= 1))
      throw InputError.of(['confidenceAfterReview'], 'must be between 0 and 1');
    const reviewer = caller.auth?.username ?? null;
    const reviewed = await this.deps.store.review(
      tenant,
      id,
      {
        reviewerId: reviewer,
        correctedText: input.correctedText,
        correctedFields: input.correctedFields ?? null,
        confidenceAfterReview: confidence,
      },
      this.event(caller, tenant, job.documentHash, 'tier3', confidence, job.pageCount, false, {
        status: 'completed',
        reviewed: true,
      }),
    );
    if (!reviewed) throw new ConflictError('The job is no longer awaiting review');
    this.emit(tenant, id);
    return reviewed;
  }

  /**
   * The caller's tenant's cache entry for a document, or null (also for a string that is no
   * SHA-256, and for another tenant's document): a miss is an answer, not an error (GET /cache).
   */
  async lookupCache(caller: Caller, documentHash: string, tenantId?: string): Promise<CacheEntry | null> {
    const tenant = await this.deps.access.resolve(caller, tenantId, ['tenant_id'], 'ocr.cache.read');
    return /^[0-9a-f]{64}$/i.test(documentHash) ? this.deps.store.cached(tenant, documentHash.toLowerCase()) : null;
  }

  async reviewQueue(caller: Caller, tenantId?: string, limit = 50): Promise<OcrJob[]> {
    const tenant = await this.deps.access.resolve(caller, tenantId, ['tenant_id'], 'ocr.review-queue.read');
    return this.deps.store.reviewQueue(tenant, Math.min(Math.max(1, limit), 200));
  }

  async stats(caller: Caller, tenantId?: string): Promise<OcrStats> {
    // Platform operators and service accounts see every tenant unless they name one.
    if (tenantId === undefined && caller.auth && actsForAnyTenant(caller.auth) && !caller.headerTenant)
      return this.deps.store.stats(null);
    const tenant = await this.deps.access.resolve(caller, tenantId, ['tenant_id'], 'ocr.stats.read');
    return this.deps.store.stats(tenant);
  }

  /** Waits for the jobs running in this process (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.running]);
  }
}

function highestTier(pages: PageResult[]): Tier {
  if (pages.some((p) => p.source === 'tier2')) return 'tier2';
  if (pages.some((p) => p.source === 'tier1')) return 'tier1';
  return 'text_layer';
}
