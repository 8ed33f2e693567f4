// OCR and retrieval, both real, in one platform: a scanned page uploaded to retrieval is read by
// the OCR service (platform/clients/ocr.client.ts) and its text becomes searchable; a page sent
// to OCR with `index_in_rag` is forwarded to retrieval's ingest route
// (platform/clients/retrieval.client.ts) under the same tenant, and another tenant finds nothing.
import { invoicePage } from '../../fixtures/ocr/invoice-pages';
import { until } from '../../support/waiting';
import { call as ragCall, upload as ragUpload } from '../rag/rag.support';
import { settled, upload as ocrUpload } from '../ocr/ocr.support';
import { DEV, startPlatform, tenantToken, type Platform } from '../router/platform.support';

jest.setTimeout(240_000);

let platform: Platform;
let admin: string;
let tokenB: string;

beforeAll(async () => {
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', OCR_WORKERS: '1' });
  admin = await platform.login(DEV.admin.username, DEV.admin.password);
  tokenB = await tenantToken('tenant-b');
});
afterAll(async () => {
  await platform?.close();
});

async function retrieve(token: string, query: string): Promise<any[]> {
  const r = await ragCall(platform.urls.rag!, 'POST', '/retrieve', token, { query, top_k: 5 });
  expect(r.status).toBe(200);
  return r.body.chunks as any[];
}

test('a scanned page uploaded to retrieval is read by the OCR service and becomes searchable for its tenant only', async () => {
  const page = invoicePage(41);
  const up = await ragUpload(
    platform.urls.rag!,
    admin,
    { content: page.png, filename: 'scan.png', type: 'image/png' },
    { title: 'Scanned invoice' },
  );
  expect(up.status).toBe(200);
  expect(up.body).toMatchObject({ title: 'Scanned invoice', status: 'active' });
  expect(up.body.chunks_count).toBeGreaterThan(0);
  const chunks = await retrieve(admin, 'invoice Northwind Traders total');
  expect(chunks.some((c) => c.document_title === 'Scanned invoice' && String(c.content).includes('Northwind'))).toBe(
    true,
  );
  expect(
    (await retrieve(tokenB, 'invoice Northwind Traders total')).some((c) => c.document_title === 'Scanned invoice'),
  ).toBe(false);
});

test('OCR with index_in_rag forwards the extracted text to retrieval under the same tenant', async () => {
  const page = invoicePage(43);
  const base = platform.urls.ocr!;
  const r = await ocrUpload(base, page.png, {
    token: admin,
    filename: 'forwarded.png',
    type: 'image/png',
    fields: { index_in_rag: 'true' },
  });
  expect(r.status).toBe(202);
  const job = await settled(base, r.body.job_id, admin);
  expect(job.status).toBe('completed');
  // The forwarded document is titled after the uploaded file.
  let found: any[] = [];
  await until(
    async () => {
      found = (await retrieve(admin, 'ACME Supplies invoice Harbour Street')).filter(
        (c) => c.document_title === 'forwarded.png',
      );
      return found.length > 0;
    },
    'the OCR text in retrieval',
    { tries: 600, everyMs: 100 },
  );
  expect(found[0].content).toContain('Harbour');
  expect(
    (await retrieve(tokenB, 'ACME Supplies invoice Harbour Street')).some((c) => c.document_title === 'forwarded.png'),
  ).toBe(false);
});
