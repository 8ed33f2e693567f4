// Tier 2 against a local stand-in speaking the OpenAI chat-completions wire format: a doubtful
// page (tier 1 under 80%) goes to the vision model with its image, a confident answer completes
// the job on tier 2, a doubtful one still waits for review, a failing model keeps tier 1's text
// and says so. `ocr_extract` audit events through the outbox; the text forwarded to a retrieval
// stand-in when the upload asks for it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ocrService } from '../../../services/ocr';
import { invoicePage } from '../../fixtures/ocr/invoice-pages';
import { startServices, type Harness } from '../../support/service-harness';
import { startVendor, type VendorStandIn } from '../../support/vendors/vendor-stand-in';
import { until } from '../../support/waiting';
import { tenantToken } from '../router/platform.support';
import { call, settled, upload } from './ocr.support';

jest.setTimeout(240_000);

interface Ingest {
  headers: http.IncomingHttpHeaders;
  body: any;
}

let h: Harness;
let base: string;
let vision: VendorStandIn;
let rag: { url: string; seen: Ingest[]; close(): Promise<void> };
let token: string;

async function startRetrieval(): Promise<typeof rag> {
  const seen: Ingest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/rag/ingest') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (body.title === 'refused.png')
          return res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"down for maintenance"}');
        seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(202, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ job_id: 'ingest-1', status: 'queued' }));
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

beforeAll(async () => {
  [vision, rag] = await Promise.all([startVendor('openai'), startRetrieval()]);
  h = await startServices([ocrService], {
    OCR_WORKERS: '1',
    OCR_VISION_MODEL: 'vision-test',
    OPENAI_API_KEY: 'sk-vision-test',
    OPENAI_BASE_URL: vision.url,
    RAG_SERVICE_URL: rag.url,
  });
  base = h.services.ocr!.url;
  token = await tenantToken('tenant-v');
});
afterAll(async () => {
  await h?.close();
  await vision?.close();
  await rag?.close();
});

const doubtful = (n: number) => invoicePage(n, { fontPx: 8, width: 300 });

test('tier 1 under 80%: the page image goes to the vision model; a confident answer completes the job on tier 2', async () => {
  vision.reply = () => JSON.stringify({ text: 'INVOICE No: INV-2026-9999\nTotal: 42.00', confidence: 0.96 });
  const before = vision.completions().length;
  const r = await upload(base, doubtful(10).png, { token });
  const job = await settled(base, r.body.job_id, token);
  expect(job).toMatchObject({
    status: 'completed',
    tier_used: 'tier2',
    confidence_score: 0.96,
    extracted_text: 'INVOICE No: INV-2026-9999\nTotal: 42.00',
  });
  expect(job.pages[0].source).toBe('tier2');
  expect(job.extracted_fields.invoice_number.value).toBe('INV-2026-9999');
  const sent = vision.completions().slice(before);
  expect(sent).toHaveLength(1);
  const body = JSON.parse(sent[0]!.body);
  expect(body.model).toBe('vision-test');
  expect(sent[0]!.headers.authorization).toBe('Bearer sk-vision-test');
  const image = body.messages[0].content.find((c: any) => c.type === 'image_url');
  expect(image.image_url.url).toMatch(/^data:image\/png;base64,iVBOR/);
  const health = await call(base, 'GET', '/health');
  expect(health.body.vision_model).toEqual({ status: 'configured', model: 'vision-test' });
});

test('a vision answer under 85% still waits for review; a failing vision model keeps tier 1 and says so; a clear page never reaches the model', async () => {
  vision.reply = () => JSON.stringify({ text: 'blurry words', confidence: 0.7 });
  const r1 = await upload(base, doubtful(11).png, { token });
  expect(await settled(base, r1.body.job_id, token)).toMatchObject({
    status: 'review',
    tier_used: 'tier2',
    confidence_score: 0.7,
  });

  vision.queue = ['error', 'error'];
  const r2 = await upload(base, doubtful(12).png, { token });
  const failed = await settled(base, r2.body.job_id, token);
  expect(failed).toMatchObject({ status: 'review', tier_used: 'tier1' });
  expect(failed.notes.join(' ')).toMatch(/vision model vision-test failed/);

  const before = vision.completions().length;
  const clear = await upload(base, invoicePage(13).png, { token });
  expect(await settled(base, clear.body.job_id, token)).toMatchObject({ status: 'completed', tier_used: 'tier1' });
  expect(vision.completions().length).toBe(before);
});

test('ocr_extract events in the outbox (document_hash, tier_used, confidence, page_count), cache hits too; text forwarded to retrieval when asked', async () => {
  const page = invoicePage(14);
  const r = await upload(base, page.png, { token, fields: { index_in_rag: 'true' }, filename: 'acme.png' });
  const job = await settled(base, r.body.job_id, token);
  expect(job.index_in_rag).toBe(true);
  await until(() => rag.seen.length >= 1, 'the retrieval ingest');
  expect(rag.seen[0]!.headers['x-tenant-id']).toBe('tenant-v');
  expect(rag.seen[0]!.headers.authorization).toBe(`Bearer ${token}`);
  expect(rag.seen[0]!.body).toMatchObject({
    title: 'acme.png',
    content: job.extracted_text,
    source: `ocr:${job.job_id}`,
    metadata: { ocr_job_id: job.job_id, document_hash: job.document_hash },
  });

  const hit = await upload(base, page.png, { token });
  expect(hit.body.cache_hit).toBe(true);
  const events = await h.db.prisma.outboxEvent.findMany({
    where: { service: 'ocr', tenantId: 'tenant-v', eventType: 'ocr_extract' },
  });
  const forDoc = events
    .filter((e) => (e.eventData as any).document_hash === job.document_hash)
    .map((e) => e.eventData as any);
  expect(forDoc).toHaveLength(2);
  expect(forDoc.find((e) => !e.cache_hit)).toMatchObject({
    tier_used: 'tier1',
    page_count: 1,
    confidence: job.confidence_score,
    status: 'completed',
  });
  expect(forDoc.find((e) => e.cache_hit)).toMatchObject({ tier_used: 'tier1', page_count: 1 });
  // No document text in the ledger.
  expect(JSON.stringify(forDoc)).not.toContain('Northwind');
  // Without index_in_rag nothing is forwarded.
  expect(rag.seen).toHaveLength(1);
});

test("the hand-off to retrieval is recorded in the job's notes, taken or refused", async () => {
  const job = async (id: string) => (await call(base, 'GET', `/jobs/${id}`, { token })).body;
  const sent = await upload(base, invoicePage(15).png, {
    token,
    fields: { index_in_rag: 'true' },
    filename: 'noted.png',
  });
  await settled(base, sent.body.job_id, token);
  await until(
    async () =>
      (await job(sent.body.job_id)).notes.some(
        (n: string) => n === 'sent to retrieval for indexing (ingestion job ingest-1)',
      ),
    'the hand-off noted',
  );
  const refused = await upload(base, invoicePage(16).png, {
    token,
    fields: { index_in_rag: 'true' },
    filename: 'refused.png',
  });
  expect(await settled(base, refused.body.job_id, token)).toMatchObject({ status: 'completed' });
  await until(
    async () =>
      (await job(refused.body.job_id)).notes.some((n: string) =>
        n.startsWith('index_in_rag: retrieval did not take the text (retrieval ingest answered 503)'),
      ),
    'the refusal noted',
  );
});
