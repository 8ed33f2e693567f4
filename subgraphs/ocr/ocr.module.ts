// Wires the OCR service from its dependencies: the store, the tesseract pool (created once),
// the vision reader (tier 2, when configured), the PDF reader, the tenant rule with operator
// audit, and the retrieval client (RAG_SERVICE_URL as spec 02 names it, else RAG_URL / port 8138,
// as the AI broker finds it).
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { RetrievalClient } from '../../platform/clients/retrieval.client';
import { readInt, readUrl } from '../../platform/config/env';
import { serviceUrl } from '../../platform/config/platform.config';
import type { Database } from '../../platform/db/database';
import { auditEvent, outboxWriter } from '../../platform/outbox/outbox.writer';
import type { Env } from '../../platform/service';
import { prismaOcrStore } from './ocr.store';
import { ocrLimits } from './ocr.config';
import { OcrService, type ProgressListener } from './ocr.service';
import { DocumentDecoder } from './document-decoder';
import { PreprocessWorkers } from './preprocess.workers';
import { TesseractPool, type LangData } from './tesseract-pool';
import { visionReaderFrom } from './vision.reader';

export interface OcrModule {
  ocr: OcrService;
  engine: TesseractPool;
  decoder: DocumentDecoder;
  preprocess: PreprocessWorkers;
  /** How often interrupted jobs are failed (OCR_SWEEP_INTERVAL_MS). */
  sweepIntervalMs: number;
}

/** `identity`: OCR's own, for the hand-off to retrieval of callers without a token (service-identity.ts). */
export function createOcrModule(deps: {
  db: Database;
  env: Env;
  onProgress?: ProgressListener;
  identity?: DelegatedIdentity;
}): OcrModule {
  const { db, env } = deps;
  const outbox = outboxWriter(db.prisma, 'ocr');
  const access = new TenantAccess((a) =>
    outbox.append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  const workers = env.OCR_WORKERS ? Number(env.OCR_WORKERS) : undefined;
  const engine = new TesseractPool(
    workers,
    (env.OCR_LANG_DATA as LangData | undefined) ?? undefined,
    env.OCR_LANG_PATH || undefined,
  );
  // One preprocessing thread per engine worker: a page is preprocessed while another is read.
  const preprocess = new PreprocessWorkers(engine.size);
  const decoder = new DocumentDecoder();
  const ragUrl = readUrl(env, 'RAG_SERVICE_URL', ['http:', 'https:']) ?? serviceUrl(env, { name: 'rag', port: 8138 });
  const ocr = new OcrService({
    // OCR_JOB_LEASE_MS: a running job with no page done for this long counts as interrupted.
    store: prismaOcrStore(db.prisma, { leaseMs: readInt(env, 'OCR_JOB_LEASE_MS', 300_000, { min: 100 }) }),
    engine,
    preprocess,
    vision: visionReaderFrom(env),
    decoder,
    access,
    retrieval: new RetrievalClient(ragUrl, undefined, deps.identity),
    limits: ocrLimits(env),
    onProgress: deps.onProgress,
  });
  return {
    ocr,
    engine,
    decoder,
    preprocess,
    sweepIntervalMs: readInt(env, 'OCR_SWEEP_INTERVAL_MS', 30_000, { min: 50 }),
  };
}
