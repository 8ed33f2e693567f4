// Ingestion and the document lifecycle: an upload or a text becomes a document at a level of the
// hierarchy, its text chunked (headings kept) and embedded, stored with its `rag_ingest` audit
// event in one transaction; the same text in the same place is not indexed twice (content_hash);
// POST /v1/rag/ingest runs as a job whose progress is stored and published, and which another copy
// of the service takes over when the process running it dies (a lease); listing, soft delete
// (the row kept for audit, its chunks never searched again, cache entries drawing on it removed).
import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { InputError, NotFoundError, type InputIssue } from '../../platform/errors/domain-errors';
import { isUuid } from '../../platform/ids';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { unstorableText } from '../../platform/text';
import type { Embedder } from './embedding/embedder';
import type { DocumentStore } from './document.store';
import type { IngestJobStore, Lease } from './ingest-job.store';
import { chunkText } from './ingestion/chunker';
import type { DocumentReader } from './ingestion/document-reader';
import type { QueryCacheStore } from './query-cache.store';
import type { RagConfig } from './rag.config';
import type { AccessLevel, IngestJob, Level, RagDocument, Scope } from './rag.types';
import {
  normaliseScope,
  parseAccessLevel,
  parseLevel,
  placementIssues,
  readableAccessLevels,
  scopeIssues,
} from './scope.rules';

export const RAG_INGEST_EVENT = 'rag_ingest';
export const RAG_DELETE_EVENT = 'rag_delete';
const MAX_TITLE = 500;
const MAX_TEXT_CHARS = 5_000_000;

export interface DocumentFields {
  title?: unknown;
  level?: unknown;
  suiteId?: unknown;
  moduleId?: unknown;
  entityId?: unknown;
  description?: unknown;
  accessLevel?: unknown;
  metadata?: unknown;
}

interface Placement extends Scope {
  title: string;
  level: Level;
  description: string | null;
  accessLevel: AccessLevel;
  metadata: Record<string, unknown>;
}

export function hierarchyPath(level: Level, s: Scope): string {
  const parts = ['platform'];
  if (s.suiteId && level !== 'platform') parts.push(`suite:${s.suiteId}`);
  if (s.moduleId && (level === 'module' || level === 'entity')) parts.push(`module:${s.moduleId}`);
  if (s.entityId && level === 'entity') parts.push(`entity:${s.entityId}`);
  return parts.join('/');
}

/** Who asked, as the audit event and the document record name them (kept with a job to resume it). */
interface Requester {
  correlationId: string;
  username: string | null;
}

/** A job's input in rag_ingest_jobs.input: everything needed to run it again. */
interface IngestInput {
  placement: Placement;
  text: string;
  source?: string;
  requester: Requester;
}

const requesterOf = (caller: Caller): Requester => ({
  correlationId: caller.correlationId,
  username: caller.auth?.username ?? null,
});

/** Thrown inside a job whose lease another copy took over: it stops without writing more. */
class LeaseLost extends Error {}

export interface ProgressEvent {
  tenantId: string;
  job: IngestJob;
}

export class DocumentService {
  /** Ingestion progress, for the GraphQL subscription (this process's jobs). */
  readonly progress = new EventEmitter();
  /** This copy's name in the leases of the jobs it runs. */
  private readonly lease: Lease;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      config: RagConfig;
      embedder: Embedder;
      documents: DocumentStore;
      jobs: IngestJobStore;
      cache: QueryCacheStore;
      reader: DocumentReader;
      access: TenantAccess;
    },
  ) {
    this.progress.setMaxListeners(0);
    this.lease = { owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, ms: deps.config.jobLeaseMs };
  }

  tenant(caller: Caller, action: string): Promise<string> {
    return this.deps.access.resolve(caller, undefined, ['header', 'x-tenant-id'], action);
  }

  /** Title, level, scope ids and access level checked together: every problem named at once. */
  placement(f: DocumentFields): Placement {
    const issues: InputIssue[] = [];
    const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
    const title = str(f.title);
    if (!title) issues.push({ loc: ['title'], msg: 'Field required', type: 'missing' });
    else if (title.length > MAX_TITLE || unstorableText(title))
      issues.push({ loc: ['title'], msg: `Should be 1-${MAX_TITLE} characters of text`, type: 'value_error' });
    let level: Level = 'platform';
    try {
      level = f.level === undefined || f.level === null || f.level === '' ? 'platform' : parseLevel(f.level);
    } catch (err) {
      issues.push(...(err as InputError).issues);
    }
    let accessLevel: AccessLevel = 'internal';
    try {
      accessLevel = parseAccessLevel(f.accessLevel);
    } catch (err) {
      issues.push(...(err as InputError).issues);
    }
    const raw = { suiteId: str(f.suiteId), moduleId: str(f.moduleId), entityId: str(f.entityId) };
    issues.push(...scopeIssues(raw));
    const scope = normaliseScope(raw);
    if (!issues.some((i) => i.loc[0] === 'level')) issues.push(...placementIssues(level, scope));
    const description = str(f.description) ?? null;
    if (description && unstorableText(description))
      issues.push({ loc: ['description'], msg: 'Should be text', type: 'value_error' });
    if (
      f.metadata !== undefined &&
      (typeof f.metadata !== 'object' || f.metadata === null || Array.isArray(f.metadata))
    )
      issues.push({ loc: ['metadata'], msg: 'Input should be an object', type: 'dict_type' });
    if (issues.length > 0) throw new InputError(issues);
    // Ids of levels narrower than the document's own do not place it.
    const placed: Scope = { suiteId: scope.suiteId };
    if (level === 'module' || level === 'entity') placed.moduleId = scope.moduleId;
    if (level === 'entity') placed.entityId = scope.entityId;
    return {
      title: title!,
      level,
      description,
      accessLevel,
      metadata: (f.metadata as Record<string, unknown>) ?? {},
      ...normaliseScope(level === 'platform' ? {} : placed),
    };
  }

  /** POST /documents/upload: read the file (OCR when scanned), index it, answer the document. */
  async upload(
    caller: Caller,
    file: { bytes: Buffer; filename: string; mimeType?: string } | undefined,
    fields: DocumentFields,
    forward: { token?: string },
  ): Promise<{ document: RagDocument; duplicate: boolean }> {
    const tenantId = await this.tenant(caller, 'upload a document');
    const placement = this.placement(fields);
    if (!file) throw InputError.of(['file'], 'Field required', 'missing');
    const read = await this.deps.reader.read(
      { token: forward.token, tenantId, correlationId: caller.correlationId },
      file,
    );
    return this.index(requesterOf(caller), tenantId, placement, {
      text: read.text,
      sourceType: read.sourceType,
      fileSize: file.bytes.length,
      metadata: {
        filename: file.filename,
        extraction: read.extraction,
        ...(read.ocrJobId ? { ocr_job_id: read.ocrJobId } : {}),
        ...(read.pages ? { pages: read.pages } : {}),
      },
    });
  }

  /** POST /v1/rag/ingest: checks now, the work as a job (GET /v1/rag/progress/{job_id}). */
  async startIngest(
    caller: Caller,
    body: DocumentFields & { content?: unknown; source?: unknown },
  ): Promise<IngestJob> {
    const tenantId = await this.tenant(caller, 'ingest a document');
    const placement = this.placement(body);
    if (typeof body.content !== 'string' || body.content.trim() === '')
      throw InputError.of(['content'], "Field required: the document's text", 'missing');
    if (body.content.length > MAX_TEXT_CHARS)
      throw InputError.of(['content'], `String should have at most ${MAX_TEXT_CHARS} characters`, 'string_too_long');
    if (unstorableText(body.content))
      throw InputError.of(['content'], 'Should be text (no NUL characters or lone surrogates)');
    const text = body.content;
    const source = typeof body.source === 'string' ? body.source.slice(0, 2000) : undefined;
    const input: IngestInput = { placement, text, ...(source ? { source } : {}), requester: requesterOf(caller) };
    const job = await this.deps.jobs.create(tenantId, input, this.lease);
    // The job runs after the answer; its state is in the database, so any copy can report it,
    // and its input too, so another copy can run it again if this process dies first.
    setImmediate(() => this.track(this.runJob(tenantId, job.id, input)));
    return job;
  }

  private track(run: Promise<void>): void {
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /**
   * Takes over jobs whose runner stopped renewing its lease (its process died) and runs them
   * again; a document the dead runner had already stored is found by its content hash, so it is
   * never indexed twice. Jobs interrupted RAG_JOB_MAX_ATTEMPTS times fail. Returns the counts.
   */
  async resumeAbandoned(limit = 5): Promise<{ resumed: number; failed: number }> {
    const { claimed, failed } = await this.deps.jobs.claimAbandoned<IngestInput>(
      this.lease,
      this.deps.config.jobMaxAttempts,
      limit,
    );
    for (const job of failed) this.progress.emit('progress', { tenantId: job.tenantId, job } satisfies ProgressEvent);
    for (const { job, input } of claimed) this.track(this.runJob(job.tenantId, job.id, input));
    return { resumed: claimed.length, failed: failed.length };
  }

  /** Waits for the jobs this copy is running (a clean stop, and tests). */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private async report(tenantId: string, jobId: string, p: Parameters<IngestJobStore['update']>[3]): Promise<void> {
    if (!(await this.deps.jobs.update(tenantId, jobId, this.lease, p))) throw new LeaseLost();
    const job = await this.deps.jobs.get(tenantId, jobId);
    if (job) this.progress.emit('progress', { tenantId, job } satisfies ProgressEvent);
  }

  private async runJob(tenantId: string, jobId: string, input: IngestInput): Promise<void> {
    const { placement, text, source } = input;
    try {
      await this.report(tenantId, jobId, { status: 'processing', percent: 10, stage: 'chunking' });
      const { document } = await this.index(
        input.requester,
        tenantId,
        placement,
        {
          text,
          sourceType: 'text/plain',
          fileSize: Buffer.byteLength(text),
          metadata: { ...placement.metadata, ...(source ? { source } : {}) },
        },
        (percent, stage) => this.report(tenantId, jobId, { status: 'processing', percent, stage }),
      );
      await this.report(tenantId, jobId, {
        status: 'completed',
        percent: 100,
        stage: 'completed',
        documentId: document.id,
      });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      const message = err instanceof InputError ? err.message : 'indexing failed';
      await this.report(tenantId, jobId, { status: 'failed', percent: 100, stage: 'failed', error: message }).catch(
        () => {},
      );
    }
  }

  async job(caller: Caller, jobId: string): Promise<IngestJob> {
    const tenantId = await this.tenant(caller, 'read ingestion progress');
    const job = isUuid(jobId) ? await this.deps.jobs.get(tenantId, jobId) : null;
    if (!job) throw new NotFoundError('Ingestion job not found');
    return job;
  }

  private async index(
    requester: Requester,
    tenantId: string,
    placement: Placement,
    content: { text: string; sourceType: string; fileSize: number; metadata: Record<string, unknown> },
    progress: (percent: number, stage: string) => Promise<void> = async () => {},
  ): Promise<{ document: RagDocument; duplicate: boolean }> {
    // eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL text refuses
    const text = content.text.replace(/\r\n/g, '\n').replace(/\u0000/g, '');
    if (text.trim() === '') throw InputError.of(['file'], 'The document has no text to index');
    const contentHash = createHash('sha256').update(text).digest('hex');
    const place = {
      level: placement.level,
      suiteId: placement.suiteId ?? null,
      moduleId: placement.moduleId ?? null,
      entityId: placement.entityId ?? null,
    };
    const existing = await this.deps.documents.findDuplicate(tenantId, { ...place, contentHash });
    if (existing) return { document: existing, duplicate: true };
    // Within a document, a repeated passage (boilerplate) is indexed once.
    const seen = new Set<string>();
    const chunks = chunkText(text, this.deps.config.chunkSize, this.deps.config.chunkOverlap)
      .filter((c) => !seen.has(c.contentHash) && seen.add(c.contentHash))
      .map((c, ord) => ({ ...c, ord }));
    await progress(30, 'embedding');
    const embeddings: number[][] = [];
    for (let i = 0; i < chunks.length; i += 64) {
      embeddings.push(
        ...(await this.deps.embedder.embed(
          chunks.slice(i, i + 64).map((c) => (c.heading ? `${c.heading}\n${c.content}` : c.content)),
        )),
      );
      await progress(30 + Math.round((60 * Math.min(chunks.length, i + 64)) / chunks.length), 'embedding');
    }
    const path = hierarchyPath(placement.level, placement);
    const document = await this.deps.documents.insert(
      {
        tenantId,
        ...place,
        title: placement.title,
        description: placement.description,
        sourceType: content.sourceType,
        fileSize: content.fileSize,
        accessLevel: placement.accessLevel,
        metadata: content.metadata,
        contentHash,
        createdBy: requester.username,
      },
      chunks,
      embeddings,
      (documentId) =>
        auditEvent(requester, {
          tenantId,
          type: RAG_INGEST_EVENT,
          actor: requester.username,
          data: {
            document_id: documentId,
            title: placement.title,
            chunks_created: chunks.length,
            hierarchy_path: path,
            level: placement.level,
            source_type: content.sourceType,
            content_hash: contentHash,
          },
          description: `Document indexed at ${path}`,
        }),
    );
    // Answers cached for a scope this document reaches may now be incomplete.
    await this.deps.cache.invalidateFor(tenantId, placement.level, placement);
    return { document, duplicate: false };
  }

  async list(
    caller: Caller,
    q: { level?: unknown; suiteId?: unknown; moduleId?: unknown; limit?: unknown; offset?: unknown },
  ): Promise<{ items: RagDocument[]; total: number; limit: number; offset: number }> {
    const tenantId = await this.tenant(caller, 'list documents');
    const issues: InputIssue[] = [];
    let level: Level | undefined;
    if (q.level !== undefined && q.level !== '') {
      try {
        level = parseLevel(q.level);
      } catch (err) {
        issues.push(...(err as InputError).issues);
      }
    }
    issues.push(...scopeIssues({ suiteId: q.suiteId, moduleId: q.moduleId }));
    const int = (v: unknown, name: string, fallback: number, min: number, max: number) => {
      if (v === undefined || v === null || v === '') return fallback;
      const n = typeof v === 'number' ? v : Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        issues.push({ loc: [name], msg: `Input should be an integer from ${min} to ${max}`, type: 'value_error' });
        return fallback;
      }
      return n;
    };
    const limit = int(q.limit, 'limit', 50, 1, 500);
    const offset = int(q.offset, 'offset', 0, 0, 1_000_000);
    if (issues.length > 0) throw new InputError(issues);
    const page = await this.deps.documents.list(tenantId, {
      level,
      suiteId: (q.suiteId as string | undefined) || undefined,
      moduleId: (q.moduleId as string | undefined) || undefined,
      accessLevels: readableAccessLevels(caller),
      limit,
      offset,
    });
    return { ...page, limit, offset };
  }

  async get(caller: Caller, id: string): Promise<RagDocument> {
    const tenantId = await this.tenant(caller, 'read a document');
    const doc = isUuid(id) ? await this.deps.documents.get(tenantId, id) : null;
    if (!doc || doc.status !== 'active' || !readableAccessLevels(caller).includes(doc.accessLevel))
      throw new NotFoundError('Document not found');
    return doc;
  }

  /**
   * One readable document's chunks in order, a page after `after` (-1 for the first): what a
   * reader of the document's text needs (the compliance scanner samples it for unmasked PII).
   * The same rule as get(): another tenant's, a deleted or an unreadable document is NOT_FOUND.
   */
  async chunks(
    caller: Caller,
    id: string,
    q: { after?: unknown; limit?: unknown } = {},
  ): Promise<{ chunks: { ord: number; heading: string | null; content: string }[]; nextAfter: number | null }> {
    const issues: InputIssue[] = [];
    const int = (v: unknown, name: string, fallback: number, min: number, max: number) => {
      if (v === undefined || v === null || v === '') return fallback;
      const n = typeof v === 'number' ? v : Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        issues.push({ loc: [name], msg: `Input should be an integer from ${min} to ${max}`, type: 'value_error' });
        return fallback;
      }
      return n;
    };
    const after = int(q.after, 'after', -1, -1, 10_000_000);
    const limit = int(q.limit, 'limit', 100, 1, 500);
    if (issues.length > 0) throw new InputError(issues);
    const doc = await this.get(caller, id);
    const chunks = await this.deps.documents.chunks(doc.tenantId, doc.id, { after, limit });
    return { chunks, nextAfter: chunks.length === limit ? chunks.at(-1)!.ord : null };
  }

  /** Several documents in one read (entity references): null where get() would be NOT_FOUND. */
  async getMany(caller: Caller, ids: readonly string[]): Promise<(RagDocument | null)[]> {
    const tenantId = await this.tenant(caller, 'read a document');
    const readable = readableAccessLevels(caller);
    const found = new Map(
      (
        await this.deps.documents.getMany(
          tenantId,
          ids.filter((id) => isUuid(id)),
        )
      ).map((d) => [d.id, d]),
    );
    return ids.map((id) => {
      const doc = found.get(id);
      return doc && doc.status === 'active' && readable.includes(doc.accessLevel) ? doc : null;
    });
  }

  /** Soft delete: 404 for another tenant's id, an unknown id, or one already deleted. */
  async delete(caller: Caller, id: string): Promise<RagDocument> {
    const tenantId = await this.tenant(caller, 'delete a document');
    const doc = await this.get(caller, id);
    const done = await this.deps.documents.softDelete(
      tenantId,
      id,
      auditEvent(caller, {
        tenantId,
        type: RAG_DELETE_EVENT,
        actor: caller.auth?.username ?? null,
        data: {
          document_id: id,
          title: doc.title,
          level: doc.level,
          hierarchy_path: hierarchyPath(doc.level, {
            suiteId: doc.suiteId ?? undefined,
            moduleId: doc.moduleId ?? undefined,
            entityId: doc.entityId ?? undefined,
          }),
        },
        description: 'Document soft-deleted',
      }),
    );
    if (!done) throw new NotFoundError('Document not found');
    return { ...doc, status: 'deleted' };
  }

  counts(): Promise<{ documents: number; chunks: number }> {
    return this.deps.documents.counts();
  }
}
