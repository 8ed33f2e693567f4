// A job whose process stops (docs/ocr.md, "A job whose process stops"): with no page done within
// OCR_JOB_LEASE_MS, the sweep fails it with a reason and its ocr_extract event, once; a job whose
// lease still runs is left alone, whatever its tenant; a runner that wakes after the sweep cannot
// overwrite the end, fill the cache or write a second event.
import { randomUUID } from 'node:crypto';
import { createOcrModule, type OcrModule } from '../../../subgraphs/ocr/ocr.module';
import { INTERRUPTED, prismaOcrStore, type NewJob } from '../../../subgraphs/ocr/ocr.store';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(60_000);

let db: TestDatabase;
let ocrModule: OcrModule;

const newJob = (tenantId: string): NewJob => ({
  tenantId,
  userId: null,
  documentHash: randomUUID().replace(/-/g, '').padEnd(64, '0'),
  filename: 'scan.png',
  mimeType: 'image/png',
  status: 'pending',
  pageCount: 2,
  indexInRag: false,
});
const events = async (tenantId: string) =>
  (await db.prisma.outboxEvent.findMany({ where: { tenantId, eventType: 'ocr_extract' } })).map(
    (e) => e.eventData as Record<string, unknown>,
  );

beforeAll(async () => {
  db = await createTestDatabase();
  ocrModule = createOcrModule({ db, env: { OCR_JOB_LEASE_MS: '100' } });
});
afterAll(async () => {
  await ocrModule?.decoder.stop();
  await db?.drop();
});

test('an expired job fails with a reason and one event; a live one, of another tenant, is left alone; a late finish changes nothing', async () => {
  const shortLease = prismaOcrStore(db.prisma, { leaseMs: 100 });
  const longLease = prismaOcrStore(db.prisma, { leaseMs: 60_000 });
  const dead = await shortLease.createJob(newJob('ocr-a'));
  await shortLease.progress('ocr-a', dead.id, { status: 'processing', pagesDone: 1 });
  const alive = await longLease.createJob(newJob('ocr-b'));
  await new Promise((r) => setTimeout(r, 200));

  expect(await ocrModule.ocr.failInterrupted()).toBe(1);
  const failed = await shortLease.job('ocr-a', dead.id);
  expect(failed).toMatchObject({ status: 'failed', error: INTERRUPTED, pagesDone: 1 });
  expect(failed!.completedAt).not.toBeNull();
  expect(await events('ocr-a')).toEqual([
    expect.objectContaining({ status: 'failed', interrupted: true, page_count: 2, cache_hit: false }),
  ]);
  expect((await longLease.job('ocr-b', alive.id))!.status).toBe('pending');
  expect(await events('ocr-b')).toEqual([]);
  // Another tenant cannot read the failed job.
  expect(await shortLease.job('ocr-b', dead.id)).toBeNull();
  // A second sweep finds nothing more.
  expect(await ocrModule.ocr.failInterrupted()).toBe(0);

  // The runner wakes and finishes: fenced off.
  const late = await shortLease.finish(
    'ocr-a',
    dead.id,
    {
      status: 'completed',
      tierUsed: 'tier1',
      confidenceScore: 0.97,
      extractedText: 'late text',
      extractedFields: null,
      pages: [],
      pageCount: 2,
      pagesDone: 2,
      processingTimeMs: 5,
      notes: [],
    },
    true,
    {
      tenantId: 'ocr-a',
      eventType: 'ocr_extract',
      eventData: { status: 'completed' },
      userId: null,
      correlationId: 'late',
      idempotencyKey: randomUUID(),
    },
  );
  expect(late).toMatchObject({ status: 'failed', error: INTERRUPTED, extractedText: null });
  expect(await db.prisma.ocrCache.count({ where: { tenantId: 'ocr-a' } })).toBe(0);
  expect(await events('ocr-a')).toHaveLength(1);
});
