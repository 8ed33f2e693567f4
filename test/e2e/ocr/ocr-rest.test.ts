// The OCR service over its REST routes with real multipart uploads of generated invoice pages:
// tier 1 with preprocessing (clean, rotated, noisy), fields, the per-tenant cache, PDFs (text
// layer and rendered pages, progress), review of a doubtful job, tenant isolation, and every
// kind of bad input, after which the engine still works.
import { createHash } from 'node:crypto';
import { ocrService } from '../../../services/ocr';
import { invoicePage } from '../../fixtures/ocr/invoice-pages';
import { damagedPdf, pdfOf } from '../../fixtures/ocr/tiny-pdf';
import { startServices, type Harness } from '../../support/service-harness';
import { tenantToken } from '../router/platform.support';
import { call, settled, upload } from './ocr.support';

jest.setTimeout(240_000);

let h: Harness;
let base: string;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  h = await startServices([ocrService], { OCR_WORKERS: '1' });
  base = h.services.ocr!.url;
  tokenA = await tenantToken('tenant-a');
  tokenB = await tenantToken('tenant-b');
});
afterAll(async () => {
  await h?.close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A page tesseract reads with low confidence (8px text): the review and tier-2 paths. */
const doubtful = () => invoicePage(3, { fontPx: 8, width: 300 });

test('a clean invoice: 202 pending, then completed on tier 1 with text, pages, fields and timing; the second upload is a cache hit', async () => {
  const page = invoicePage(1);
  const r = await upload(base, page.png, { token: tokenA, filename: 'invoice.png', type: 'image/png' });
  expect(r.status).toBe(202);
  expect(r.body).toMatchObject({
    status: 'pending',
    document_hash: sha(page.png),
    mime_type: 'image/png',
    filename: 'invoice.png',
  });
  const job = await settled(base, r.body.job_id, tokenA);
  expect(job).toMatchObject({
    status: 'completed',
    tier_used: 'tier1',
    cache_hit: false,
    progress: { pages_done: 1, page_count: 1 },
  });
  expect(job.confidence_score).toBeGreaterThanOrEqual(0.85);
  expect(job.extracted_text).toContain('INV-2026-1037');
  expect(job.pages).toHaveLength(1);
  expect(job.pages[0]).toMatchObject({ page: 1, source: 'tier1' });
  expect(typeof job.processing_time_ms).toBe('number');
  expect(job.extracted_fields.invoice_number.value).toBe('INV-2026-1037');
  expect(job.extracted_fields.total.value).toBe('150.00');
  expect(job.extracted_fields.invoice_date.value).toBe('2026-03-15');
  expect(job.extracted_fields.invoice_number.confidence).toBeGreaterThan(0.5);

  const again = await upload(base, page.png, { token: tokenA });
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({
    status: 'completed',
    cache_hit: true,
    extracted_text: job.extracted_text,
    tier_used: 'tier1',
  });
  expect(again.body.job_id).not.toBe(job.job_id);
  const cached = await call(base, 'GET', `/cache/${sha(page.png)}`, { token: tokenA });
  expect(cached.status).toBe(200);
  expect(cached.body).toMatchObject({
    cache_hit: true,
    hit: true,
    hit_count: 1,
    extracted_text: job.extracted_text,
    document_hash: sha(page.png),
    cached_at: cached.body.created_at,
  });

  // Tenant B learns nothing of tenant A's document: its cache misses, its upload is processed afresh.
  // A miss is the original service's 200 with cache_hit false and nothing else.
  const missB = await call(base, 'GET', `/cache/${sha(page.png)}`, { token: tokenB });
  expect(missB.status).toBe(200);
  expect(missB.body).toMatchObject({
    cache_hit: false,
    document_hash: sha(page.png),
    extracted_text: null,
    extracted_fields: null,
    tier_used: null,
    confidence_score: null,
    hit_count: null,
  });
  expect((await call(base, 'GET', `/jobs/${job.job_id}`, { token: tokenB })).status).toBe(404);
  const b = await upload(base, page.png, { token: tokenB });
  expect(b.status).toBe(202);
  expect(b.body.cache_hit).toBe(false);
  await settled(base, b.body.job_id, tokenB);
  expect((await call(base, 'GET', '/cache/' + '0'.repeat(64), { token: tokenA })).body).toMatchObject({
    cache_hit: false,
    extracted_text: null,
  });
});

test('rotated and noisy scans: the skew is found and removed, the speckle filtered, the text read', async () => {
  const rotated = invoicePage(2, { rotateDegrees: 5 });
  const noisy = invoicePage(4, { noise: 0.05, seed: 11 });
  const [r1, r2] = await Promise.all([
    upload(base, rotated.png, { token: tokenA }),
    upload(base, noisy.png, { token: tokenA }),
  ]);
  const [j1, j2] = await Promise.all([settled(base, r1.body.job_id, tokenA), settled(base, r2.body.job_id, tokenA)]);
  expect(Math.abs(j1.pages[0].preprocessing.skew_degrees)).toBeGreaterThanOrEqual(4);
  expect(j1.extracted_text).toContain('INV-2026-1074');
  expect(j2.pages[0].preprocessing.denoised).toBe(true);
  expect(j2.extracted_text).toContain('Northwind');
});

test('a doubtful page with no vision model: stays on tier 1 and says so, waits for review; the review completes it and becomes what the job and cache answer', async () => {
  const page = doubtful();
  const r = await upload(base, page.png, { token: tokenA });
  const job = await settled(base, r.body.job_id, tokenA);
  expect(job).toMatchObject({ status: 'review', tier_used: 'tier1' });
  expect(job.confidence_score).toBeLessThan(0.85);
  expect(job.notes.join(' ')).toMatch(/no vision model is configured/);
  expect((await call(base, 'GET', `/cache/${sha(page.png)}`, { token: tokenA })).body.cache_hit).toBe(false);

  const queue = await call(base, 'GET', '/stats', { token: tokenA });
  expect(queue.body.review_queue).toBeGreaterThanOrEqual(1);

  // Another tenant can neither read nor review it.
  expect(
    (await call(base, 'PUT', `/jobs/${job.job_id}/review`, { token: tokenB, body: { corrected_text: 'x' } })).status,
  ).toBe(404);

  const corrected = page.text;
  const reviewed = await call(base, 'PUT', `/jobs/${job.job_id}/review`, {
    token: tokenA,
    body: {
      corrected_text: corrected,
      corrected_fields: { invoice_number: { value: 'INV-2026-1111', confidence: 1 } },
      confidence_after_review: 0.99,
      reviewer_comment: 'zq81-unknown',
    },
  });
  expect(reviewed.status).toBe(200);
  // An unknown member (reviewer_comment) is ignored as FastAPI does: neither stored nor echoed.
  expect(JSON.stringify(reviewed.body)).not.toContain('zq81-unknown');
  expect(reviewed.body).toMatchObject({
    status: 'completed',
    tier_used: 'tier3',
    confidence_score: 0.99,
    extracted_text: corrected,
  });
  expect(reviewed.body.review).toMatchObject({ confidence_after_review: 0.99 });
  const read = await call(base, 'GET', `/jobs/${job.job_id}`, { token: tokenA });
  expect(read.body).toMatchObject({
    status: 'completed',
    extracted_text: corrected,
    extracted_fields: { invoice_number: { value: 'INV-2026-1111' } },
  });
  const cached = await call(base, 'GET', `/cache/${sha(page.png)}`, { token: tokenA });
  expect(cached.body).toMatchObject({ extracted_text: corrected, tier_used: 'tier3' });
  const again = await upload(base, page.png, { token: tokenA });
  expect(again.body).toMatchObject({ cache_hit: true, extracted_text: corrected, status: 'completed' });

  // Reviewing a job not awaiting review: 409.
  expect(
    (await call(base, 'PUT', `/jobs/${job.job_id}/review`, { token: tokenA, body: { corrected_text: 'again' } }))
      .status,
  ).toBe(409);
});

test("PDFs: a text-layer page is read directly, a scanned page is rendered and OCR'd; page-level results and progress", async () => {
  const scan = invoicePage(5, { width: 600, fontPx: 22 });
  const pdf = pdfOf([
    { lines: ['Statement of account', 'Invoice No: INV-PDF-0001', 'Total: 99.00'] },
    { gray: scan.gray },
  ]);
  const r = await upload(base, pdf, { token: tokenA, filename: 'two.pdf' });
  expect(r.status).toBe(202);
  expect(r.body).toMatchObject({ mime_type: 'application/pdf', progress: { page_count: 2, pages_done: 0 } });
  const job = await settled(base, r.body.job_id, tokenA);
  expect(job.progress).toEqual({ pages_done: 2, page_count: 2 });
  expect(job.pages[0]).toMatchObject({ page: 1, source: 'text_layer', confidence: 1 });
  expect(job.pages[0].text).toContain('INV-PDF-0001');
  expect(job.pages[1]).toMatchObject({ page: 2, source: 'tier1' });
  expect(job.pages[1].text).toContain('Northwind');
  expect(job.tier_used).toBe('tier1');
});

test('bad input: missing file 422, not an image 415, corrupt image and PDF 422, bomb refused, encrypted PDF 422, bad ids 404; the engine still works', async () => {
  const missing = await fetch(`${base}/extract`, {
    method: 'POST',
    body: (() => {
      const f = new FormData();
      f.append('note', 'x');
      return f;
    })(),
    headers: { authorization: `Bearer ${tokenA}` },
  });
  expect(missing.status).toBe(422);
  expect(((await missing.json()) as any).detail[0].loc).toEqual(['body', 'file']);
  const json = await call(base, 'POST', '/extract', { token: tokenA, body: { file: 'abc' } });
  expect(json.status).toBe(422);

  const text = await upload(base, Buffer.from('just some words, not an image'), {
    token: tokenA,
    filename: 'a.png',
    type: 'image/png',
  });
  expect(text.status).toBe(415);
  expect(text.body.detail).toMatch(/not an image/);
  const zip = await upload(base, Buffer.from('PK\x03\x04rest of a zip', 'latin1'), { token: tokenA });
  expect(zip.status).toBe(415);

  const good = invoicePage(6).png;
  const corrupt = Buffer.concat([good.subarray(0, 40), Buffer.alloc(500, 7)]);
  const c = await upload(base, corrupt, { token: tokenA });
  expect(c.status).toBe(422);
  expect(c.body.detail[0].loc).toEqual(['body', 'file']);
  const truncatedHeader = await upload(base, good.subarray(0, 12), { token: tokenA });
  expect(truncatedHeader.status).toBe(422);
  // These crash the native decoder (SIGSEGV): contained in the decoding process, still a 422.
  expect((await upload(base, good.subarray(0, 33), { token: tokenA })).status).toBe(422);
  const jpeg = (await import('@napi-rs/canvas')).createCanvas(200, 100).toBuffer('image/jpeg');
  expect((await upload(base, jpeg.subarray(0, jpeg.length >> 1), { token: tokenA })).status).toBe(422);

  // A PNG header declaring 60000 x 60000 pixels: refused from the header, never decoded.
  const bomb = Buffer.from(good);
  bomb.writeUInt32BE(60000, 16);
  bomb.writeUInt32BE(60000, 20);
  const b = await upload(base, bomb, { token: tokenA });
  expect(b.status).toBe(413);
  expect(b.body.detail).toMatch(/60000x60000/);

  const encrypted = await upload(base, pdfOf([{ lines: ['secret'] }], { encrypt: true }), { token: tokenA });
  expect(encrypted.status).toBe(422);
  expect(encrypted.body.detail[0].msg).toMatch(/encrypted/);
  const damaged = await upload(base, damagedPdf(), { token: tokenA });
  expect(damaged.status).toBe(422);

  expect((await call(base, 'GET', '/jobs/not-a-uuid', { token: tokenA })).status).toBe(404);
  expect((await call(base, 'GET', '/jobs/00000000-0000-4000-8000-000000000000', { token: tokenA })).status).toBe(404);
  expect((await call(base, 'GET', '/cache/xyz', { token: tokenA })).body).toMatchObject({
    cache_hit: false,
    document_hash: 'xyz',
  });

  // The pool is still healthy and reads a good page.
  const health = await call(base, 'GET', '/health');
  expect(health.body).toMatchObject({
    ocr_engine: { status: 'healthy' },
    vision_model: { status: 'unconfigured' },
    database: 'healthy',
  });
  const ok = await upload(base, good, { token: tokenA });
  const job = await settled(base, ok.body.job_id, tokenA);
  expect(job.status).toBe('completed');
  expect((await call(base, 'GET', '/healthz')).status).toBe(200);
  expect((await call(base, 'GET', '/readyz')).status).toBe(200);
});

test('stats: per tenant, with tier usage, cache hits and total_jobs; naming another tenant is 403', async () => {
  const a = await call(base, 'GET', '/stats', { token: tokenA });
  expect(a.status).toBe(200);
  expect(a.body.tenant_id).toBe('tenant-a');
  expect(a.body.total_jobs).toBeGreaterThanOrEqual(3);
  expect(a.body.tier_usage.tier1).toBeGreaterThanOrEqual(1);
  expect(a.body.cache.hits).toBeGreaterThanOrEqual(1);
  // The original service's names beside ours: the same counts.
  expect(a.body.jobs_by_status).toEqual(a.body.by_status);
  expect(a.body.jobs_by_tier).toEqual(a.body.tier_usage);
  expect(Object.values(a.body.jobs_by_status as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(
    a.body.total_jobs,
  );
  expect(a.body.cache_hit_rate).toBeCloseTo(a.body.cache.jobs_answered_from_cache / a.body.total_jobs, 10);
  expect(a.body.cache_hit_rate).toBeGreaterThan(0);
  expect(a.body.average_confidence).toBeGreaterThan(0);
  expect(a.body.average_confidence).toBeLessThanOrEqual(1);
  expect(a.body.average_processing_time_ms).toBeGreaterThan(0);
  const own = await call(base, 'GET', '/stats?tenant_id=tenant-a', { token: tokenA });
  expect(own.body.total_jobs).toBe(a.body.total_jobs);
  expect((await call(base, 'GET', '/stats?tenant_id=tenant-a', { token: tokenB })).status).toBe(403);
  const b = await call(base, 'GET', '/stats', { token: tokenB });
  expect(b.body.total_jobs).toBeLessThan(a.body.total_jobs);
  expect(b.body.jobs_by_status).toEqual(b.body.by_status);
  expect(b.body.cache_hit_rate).toBe(b.body.cache.jobs_answered_from_cache / b.body.total_jobs);
});
