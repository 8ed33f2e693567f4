// The OCR domain without a database, tesseract or a vision model: OcrService over recording strict
// fakes of its store, engine, preprocessing workers, decoder, vision reader and retrieval client.
// The engine and decoder fakes have no methods in the cache-hit cases, so any OCR work there
// fails the case; every store call is pinned to the caller's tenant.
import { createHash, randomUUID } from 'node:crypto';
import type { Caller } from '../../../platform/auth/caller';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import type { RetrievalClient } from '../../../platform/clients/retrieval.client';
import { NotFoundError, PayloadTooLargeError } from '../../../platform/errors/domain-errors';
import type { DocumentDecoder } from '../../../subgraphs/ocr/document-decoder';
import type { JobResult, OcrStore } from '../../../subgraphs/ocr/ocr.store';
import { OcrService, OCR_EXTRACT_EVENT } from '../../../subgraphs/ocr/ocr.service';
import type { OcrJob } from '../../../subgraphs/ocr/ocr.types';
import type { PreprocessWorkers } from '../../../subgraphs/ocr/preprocess.workers';
import type { TesseractPool } from '../../../subgraphs/ocr/tesseract-pool';
import type { VisionReader } from '../../../subgraphs/ocr/vision.reader';
import { Fakes, withArgs } from '../../support/recording-fake';

const TENANT = 'tenant-a';
const JOB_ID = '33333333-3333-4333-8333-333333333333';
const caller: Caller = {
  auth: { username: 'alice', tenantId: TENANT, roles: ['user'], scopes: ['read', 'write'], isService: false },
  correlationId: 'corr-1',
};

/** A PNG header declaring width x height (the decoder is faked, so no pixels are needed). */
function png(width: number, height: number, salt = 0): Buffer {
  const b = Buffer.alloc(40);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b.writeUInt32BE(salt, 36);
  return b;
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function job(changes: Partial<OcrJob> = {}): OcrJob {
  return {
    id: JOB_ID,
    tenantId: TENANT,
    userId: 'alice',
    documentHash: 'h',
    filename: 'scan.png',
    mimeType: 'image/png',
    status: 'pending',
    tierUsed: null,
    confidenceScore: null,
    extractedText: null,
    extractedFields: null,
    pages: [],
    pageCount: 1,
    pagesDone: 0,
    processingTimeMs: null,
    notes: [],
    error: null,
    cacheHit: false,
    indexInRag: false,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    completedAt: null,
    review: null,
    ...changes,
  };
}

interface Ports {
  store?: Partial<OcrStore>;
  engine?: Partial<TesseractPool>;
  vision?: Partial<VisionReader> | null;
  retrieval?: Partial<RetrievalClient> | null;
  decoder?: Partial<DocumentDecoder>;
  preprocess?: Partial<PreprocessWorkers>;
}

function build(ports: Ports) {
  const fakes = new Fakes();
  const ocr = new OcrService({
    store: fakes.make<OcrStore>('store', ports.store ?? {}),
    engine: fakes.make<TesseractPool>('engine', ports.engine ?? {}),
    preprocess: fakes.make<PreprocessWorkers>('preprocess', ports.preprocess ?? {}),
    vision:
      ports.vision === null || ports.vision === undefined ? null : fakes.make<VisionReader>('vision', ports.vision),
    decoder: fakes.make<DocumentDecoder>('decoder', ports.decoder ?? {}),
    access: new TenantAccess(async () => {
      throw new Error('no operator access expected');
    }),
    retrieval: ports.retrieval ? fakes.make<RetrievalClient>('retrieval', ports.retrieval) : null,
    limits: { maxBytes: 1_000_000, maxPixels: 1_000_000, maxPages: 5 },
  });
  return { fakes, ocr };
}

/** The ports of a fresh (uncached) one-page image whose tier 1 reads `text` at `confidence`. */
function missPorts(
  confidence: number,
  text = 'INVOICE 42 Total 10.00',
  finish?: (result: JobResult, cache: boolean) => void,
): Ports {
  return {
    store: {
      answerFromCache: withArgs([expect.objectContaining({ tenantId: TENANT }), expect.anything()], async () => null),
      createJob: withArgs([expect.objectContaining({ tenantId: TENANT, status: 'pending', pageCount: 1 })], async () =>
        job(),
      ),
      progress: withArgs([TENANT, JOB_ID, expect.any(Object)], async () => undefined),
      finish: withArgs(
        [
          TENANT,
          JOB_ID,
          expect.any(Object),
          expect.any(Boolean),
          expect.objectContaining({ tenantId: TENANT, eventType: OCR_EXTRACT_EVENT }),
        ],
        async (_t: string, _id: string, result: JobResult, cache: boolean) => {
          finish?.(result, cache);
          return job({ status: result.status, extractedText: result.extractedText, tierUsed: result.tierUsed });
        },
      ),
    },
    decoder: { image: async () => ({ width: 2, height: 2, data: new Uint8ClampedArray(16) }) },
    preprocess: {
      run: async (rgba) =>
        ({ rgba, pgm: Buffer.from('P5'), report: { skewDegrees: 0, denoised: false, scale: 1 } }) as never,
    },
    engine: { workers: 1, recognise: async () => ({ text, confidence }) as never },
  };
}

describe('OcrService.extract: the cache', () => {
  it('answers a cache hit from the store without decoding or running the engine', async () => {
    const bytes = png(100, 100);
    const hit = job({ status: 'completed', cacheHit: true, documentHash: sha256(bytes), extractedText: 'cached' });
    const { fakes, ocr } = build({
      store: {
        answerFromCache: withArgs(
          [
            {
              tenantId: TENANT,
              userId: 'alice',
              documentHash: sha256(bytes),
              filename: 'scan.png',
              mimeType: 'image/png',
              indexInRag: false,
              status: 'completed',
              pageCount: 0,
            },
            { userId: 'alice', correlationId: 'corr-1', idempotencyKey: expect.any(String) },
          ],
          async () => hit,
        ),
      },
    });
    await expect(ocr.extract(caller, { bytes, filename: 'scan.png' })).resolves.toBe(hit);
    await ocr.drain();
    fakes.verify();
    expect(fakes.trail()).toEqual(['store.answerFromCache']);
  });

  it('caches by tenant and content hash: the same file again is a hit and the engine runs once; another tenant misses', async () => {
    // A store fake with a cache: finish(cache=true) fills it under (tenant, hash).
    const cache = new Map<string, OcrJob>();
    const jobs = new Map<string, OcrJob>();
    const ports = missPorts(0.95, 'INVOICE 42');
    ports.store = {
      answerFromCache: async (j) => cache.get(`${j.tenantId}/${j.documentHash}`) ?? null,
      createJob: async (j) => {
        const created = job({ id: randomUUID(), tenantId: j.tenantId, documentHash: j.documentHash });
        jobs.set(created.id, created);
        return created;
      },
      progress: async () => undefined,
      finish: async (tenantId, id, result, toCache) => {
        const done = { ...jobs.get(id)!, status: result.status, extractedText: result.extractedText };
        expect(done.tenantId).toBe(tenantId);
        if (toCache) cache.set(`${tenantId}/${done.documentHash}`, { ...done, cacheHit: true });
        return done;
      },
    };
    const { fakes, ocr } = build(ports);
    const bytes = png(10, 10, 1);
    await ocr.extract(caller, { bytes, filename: 'scan.png' });
    await ocr.drain();
    const again = await ocr.extract(caller, { bytes, filename: 'scan.png' });
    await ocr.drain();
    expect(again).toMatchObject({ cacheHit: true, extractedText: 'INVOICE 42', documentHash: sha256(bytes) });
    expect(fakes.argsOf('engine', 'recognise')).toHaveLength(1);
    const other: Caller = { auth: { ...caller.auth!, username: 'bob', tenantId: 'tenant-b' }, correlationId: 'corr-2' };
    await expect(ocr.extract(other, { bytes, filename: 'scan.png' })).resolves.toMatchObject({
      status: 'pending',
      tenantId: 'tenant-b',
    });
    await ocr.drain();
    fakes.verify();
    expect(fakes.argsOf('engine', 'recognise')).toHaveLength(2);
  });

  it('sends a cache hit asked for indexing to retrieval in the tenant, and notes the receipt', async () => {
    const bytes = png(10, 10);
    const hit = job({
      status: 'completed',
      cacheHit: true,
      indexInRag: true,
      extractedText: 'cached text',
      documentHash: sha256(bytes),
    });
    let noted: (note: string) => void = () => undefined;
    const note = new Promise<string>((resolve) => (noted = resolve));
    const { fakes, ocr } = build({
      store: {
        answerFromCache: async () => hit,
        addNote: withArgs([TENANT, JOB_ID, expect.any(String)], async (_t: string, _id: string, n: string) => noted(n)),
      },
      retrieval: {
        ingest: withArgs(
          [
            TENANT,
            expect.objectContaining({ content: 'cached text', source: `ocr:${JOB_ID}` }),
            { token: 'tok', correlationId: 'corr-1' },
          ],
          async () => ({ status: 202, body: { job_id: 'ingest-1' } }) as never,
        ),
      },
    });
    await ocr.extract(caller, { bytes, filename: 'scan.png', indexInRag: true, token: 'tok' });
    expect(await note).toBe('sent to retrieval for indexing (ingestion job ingest-1)');
    fakes.verify();
    expect(fakes.trail('engine')).toEqual([]);
  });
});

describe('OcrService.extract: the tiers', () => {
  it('keeps a confident tier-1 read, caches it and writes the ocr_extract event', async () => {
    let finished: { result: JobResult; cache: boolean } | undefined;
    const { fakes, ocr } = build(missPorts(0.95, 'INVOICE 42', (result, cache) => (finished = { result, cache })));
    const created = await ocr.extract(caller, { bytes: png(10, 10), filename: 'scan.png' });
    expect(created.status).toBe('pending');
    await ocr.drain();
    fakes.verify();
    expect(finished).toMatchObject({
      cache: true,
      result: { status: 'completed', tierUsed: 'tier1', confidenceScore: 0.95, extractedText: 'INVOICE 42' },
    });
    const event = fakes.argsOf('store', 'finish')[0]![4];
    expect(event).toMatchObject({
      tenantId: TENANT,
      eventData: { tier_used: 'tier1', cache_hit: false, status: 'completed' },
    });
  });

  it('escalates a weak tier-1 read to the vision model (tier 2)', async () => {
    let finished: JobResult | undefined;
    const ports = missPorts(0.5, 'blurry', (result) => (finished = result));
    ports.vision = {
      model: 'vision-1',
      read: withArgs([expect.any(Buffer)], async () => ({ text: 'INVOICE 42 sharp', confidence: 0.93 })),
    };
    const { fakes, ocr } = build(ports);
    await ocr.extract(caller, { bytes: png(10, 10), filename: 'scan.png' });
    await ocr.drain();
    fakes.verify();
    expect(fakes.argsOf('vision', 'read')).toHaveLength(1);
    expect(finished).toMatchObject({ status: 'completed', tierUsed: 'tier2', extractedText: 'INVOICE 42 sharp' });
  });

  it('flags a weak read for human review when no vision model is configured, and does not cache it', async () => {
    let finished: { result: JobResult; cache: boolean } | undefined;
    const { fakes, ocr } = build(missPorts(0.5, 'blurry', (result, cache) => (finished = { result, cache })));
    await ocr.extract(caller, { bytes: png(10, 10), filename: 'scan.png' });
    await ocr.drain();
    fakes.verify();
    expect(finished).toMatchObject({ cache: false, result: { status: 'review', tierUsed: 'tier1' } });
    expect(finished!.result.notes.join(' ')).toMatch(/no vision model is configured/);
  });

  it('fails the job (not the request) when the engine throws, with no cache entry', async () => {
    let finished: { result: JobResult; cache: boolean } | undefined;
    const ports = missPorts(0.9, '', (result, cache) => (finished = { result, cache }));
    ports.engine = {
      workers: 1,
      recognise: async () => {
        throw new Error('worker died');
      },
    };
    const { fakes, ocr } = build(ports);
    await ocr.extract(caller, { bytes: png(10, 10), filename: 'scan.png' });
    await ocr.drain();
    fakes.verify();
    expect(finished).toMatchObject({ cache: false, result: { status: 'failed', error: 'worker died' } });
  });

  it('refuses an image declaring too many pixels after the cache miss, before decoding or creating a job', async () => {
    const { fakes, ocr } = build({ store: { answerFromCache: async () => null } });
    await expect(ocr.extract(caller, { bytes: png(5_000, 5_000), filename: 'bomb.png' })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );
    fakes.verify();
    expect(fakes.trail()).toEqual(['store.answerFromCache']);
  });
});

describe('OcrService reads', () => {
  it("reads a job in the caller's tenant; an id that is no UUID is 404 without a store read", async () => {
    const { fakes, ocr } = build({ store: { job: withArgs([TENANT, JOB_ID], async () => job()) } });
    await expect(ocr.job(caller, JOB_ID)).resolves.toMatchObject({ id: JOB_ID });
    await expect(ocr.job(caller, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(ocr.lookupCache(caller, 'not-a-hash')).resolves.toBeNull();
    fakes.verify();
    expect(fakes.trail()).toEqual(['store.job']);
  });
});
