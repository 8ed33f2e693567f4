// The OCR service in the whole platform: REST through the gateway under /api/v1/ocr/ (multipart
// upload proxied), the subgraph through the router (a GraphQL multipart upload of an invoice page,
// the job by id, another tenant's job null, the review queue and the review mutation, progress
// over a graphql-ws subscription), and `ocr_extract` reaching the tenant's ledger via the outbox.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { invoicePage } from '../../fixtures/ocr/invoice-pages';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { DEV, gql, startPlatform, tenantToken, type Platform } from '../router/platform.support';
import { settled, upload } from './ocr.support';

jest.setTimeout(240_000);

let platform: Platform;
let relay: { stop(): Promise<void> }[] = [];
let admin: string;
let tokenB: string;
const clients: Client[] = [];

beforeAll(async () => {
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', OCR_WORKERS: '1' });
  relay = startOutboxTask({
    running: SERVICES,
    registry: registryOf(),
    db: platform.db,
    env: platform.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
  admin = await platform.login(DEV.admin.username, DEV.admin.password);
  tokenB = await tenantToken('tenant-b');
});
afterAll(async () => {
  for (const c of clients) await c.dispose();
  for (const r of relay) await r.stop();
  await platform?.close();
});

const JOB =
  'id status tierUsed confidenceScore extractedText extractedFields documentHash cacheHit progress { pagesDone pageCount } pages { page source confidence }';

async function graphqlUpload(token: string, bytes: Buffer, filename: string) {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: `mutation($file: Upload!) { extract(file: $file) { ${JOB} } }`,
      variables: { file: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), filename);
  const res = await fetch(`${platform.gateway}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('REST through the gateway: /api/v1/ocr/extract takes a multipart upload; the job is read back there; another tenant gets 404', async () => {
  const base = `${platform.gateway}/api/v1/ocr`;
  const page = invoicePage(21);
  const r = await upload(base, page.png, { token: admin, filename: 'gw.png' });
  expect(r.status).toBe(202);
  const job = await settled(base, r.body.job_id, admin);
  expect(job).toMatchObject({ status: 'completed', tenant_id: 'default', tier_used: 'tier1' });
  expect(job.extracted_text).toContain('INV-2026-1777');
  const other = await fetch(`${base}/jobs/${job.job_id}`, { headers: { authorization: `Bearer ${tokenB}` } });
  expect(other.status).toBe(404);
  const bad = await upload(base, Buffer.from('plain text'), { token: admin });
  expect(bad.status).toBe(415);
});

test('GraphQL through the router: extract(file: Upload!) with a multipart upload, progress subscription, job by id, tenant isolation', async () => {
  const page = invoicePage(22);
  const r = await graphqlUpload(admin, page.png, 'router.png');
  expect(r.body.errors).toBeUndefined();
  const id = r.body.data.extract.id;
  expect(r.body.data.extract).toMatchObject({
    status: expect.stringMatching(/PENDING|PROCESSING|COMPLETED/),
    cacheHit: false,
  });

  const client = createClient({
    url: `${platform.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${admin}` },
    retryAttempts: 0,
  });
  clients.push(client);
  const items: any[] = [];
  const errors: unknown[] = [];
  let completed = false;
  client.subscribe(
    {
      query: `subscription($id: ID!) { ocrJobProgress(id: $id) { id status progress { pagesDone pageCount } } }`,
      variables: { id },
    },
    {
      next: (v) => (v.errors ? errors.push(v.errors) : items.push(v.data)),
      error: (e) => errors.push(e),
      complete: () => (completed = true),
    },
  );
  await until(() => completed || errors.length > 0, 'the progress subscription to end');
  expect(errors).toEqual([]);
  expect(items.at(-1).ocrJobProgress).toMatchObject({
    id,
    status: 'COMPLETED',
    progress: { pagesDone: 1, pageCount: 1 },
  });

  // Another tenant cannot follow the job: the subscription ends with NOT_FOUND, nothing delivered.
  const clientB = createClient({
    url: `${platform.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${tokenB}` },
    retryAttempts: 0,
  });
  clients.push(clientB);
  const itemsB: unknown[] = [];
  const errorsB: any[] = [];
  let doneB = false;
  clientB.subscribe(
    { query: `subscription($id: ID!) { ocrJobProgress(id: $id) { id status } }`, variables: { id } },
    {
      next: (v) => (v.errors ? errorsB.push(...v.errors) : itemsB.push(v.data)),
      error: (e) => errorsB.push(e),
      complete: () => (doneB = true),
    },
  );
  await until(() => doneB || errorsB.length > 0, "tenant B's subscription to be refused");
  expect(itemsB).toEqual([]);
  expect(JSON.stringify(errorsB)).toMatch(/NOT_FOUND|not found/i);

  const read = await gql(platform.gateway, `query($id: ID!) { ocrJob(id: $id) { ${JOB} } }`, {
    token: admin,
    variables: { id },
  });
  expect(read.body.errors).toBeUndefined();
  expect(read.body.data.ocrJob).toMatchObject({
    id,
    status: 'COMPLETED',
    tierUsed: 'TIER1',
    cacheHit: false,
    pages: [{ page: 1, source: 'TIER1' }],
  });
  expect(read.body.data.ocrJob.extractedText).toContain('INV-2026-1814');
  expect(read.body.data.ocrJob.extractedFields.invoice_number.value).toBe('INV-2026-1814');
  const other = await gql(platform.gateway, `query($id: ID!) { ocrJob(id: $id) { id } }`, {
    token: tokenB,
    variables: { id },
  });
  expect(other.body.data.ocrJob).toBeNull();

  // The same bytes again: answered from the cache at once.
  const again = await graphqlUpload(admin, page.png, 'router.png');
  expect(again.body.data.extract).toMatchObject({
    status: 'COMPLETED',
    cacheHit: true,
    extractedText: read.body.data.ocrJob.extractedText,
  });
  // Not an image: BAD_USER_INPUT naming the file.
  const bad = await graphqlUpload(admin, Buffer.from('not an image'), 'x.png');
  expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});

test('review queue and review mutation through the router; ocr_extract events reach the tenant ledger', async () => {
  const doubtful = invoicePage(23, { fontPx: 8, width: 300 });
  const r = await graphqlUpload(admin, doubtful.png, 'doubtful.png');
  const id = r.body.data.extract.id;
  await until(async () => {
    const q = await gql(platform.gateway, '{ ocrReviewQueue { id status } }', { token: admin });
    return (q.body.data?.ocrReviewQueue ?? []).some((j: any) => j.id === id);
  }, 'the job to wait for review');
  const other = await gql(platform.gateway, '{ ocrReviewQueue { id } }', { token: tokenB });
  expect(other.body.data.ocrReviewQueue).toEqual([]);
  const reviewed = await gql(
    platform.gateway,
    `mutation($id: ID!, $input: OcrReviewInput!) { reviewOcrJob(id: $id, input: $input) { id status tierUsed confidenceScore extractedText } }`,
    {
      token: admin,
      variables: { id, input: { correctedText: doubtful.text, confidenceAfterReview: 0.98 } },
    },
  );
  expect(reviewed.body.errors).toBeUndefined();
  expect(reviewed.body.data.reviewOcrJob).toMatchObject({
    id,
    status: 'COMPLETED',
    tierUsed: 'TIER3',
    confidenceScore: 0.98,
    extractedText: doubtful.text,
  });
  const twice = await gql(
    platform.gateway,
    `mutation($id: ID!) { reviewOcrJob(id: $id, input: { correctedText: "x" }) { id } }`,
    { token: admin, variables: { id } },
  );
  expect(twice.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');

  // Events arrive through the outbox relay, later: wait for the review's.
  let data: any[] = [];
  await until(async () => {
    const res = await fetch(`${platform.gateway}/api/v1/ledger/events?event_type=ocr_extract`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    data = (((await res.json()) as { events: any[] }).events ?? []).map((e) => e.event_data);
    return data.some((d: any) => d.tier_used === 'tier3' && d.reviewed === true);
  }, "the review's ocr_extract event in the ledger");
  expect(data.every((d: any) => typeof d.document_hash === 'string' && 'page_count' in d && 'confidence' in d)).toBe(
    true,
  );
});
