// The retrieval service in the whole platform: its subgraph through the router (a multipart
// uploadDocument streamed by the router, search, documents, ask, conversations, the ingestion
// progress subscription over graphql-ws), another tenant seeing nothing, the AI broker's use_rag
// path calling the real POST /retrieve, and rag_ingest / rag_query / rag_delete events reaching
// the caller's own ledger through the outbox relay.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { gql, startPlatform, type Platform } from '../router/platform.support';
import { call, POLICY_MD, token } from './rag.support';

jest.setTimeout(240_000);

let platform: Platform;
let relay: { stop(): Promise<void> }[] = [];
let a: string;
let b: string;
const clients: Client[] = [];

beforeAll(async () => {
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10' });
  relay = startOutboxTask({
    running: SERVICES,
    registry: registryOf(),
    db: platform.db,
    env: platform.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
  a = await token('rag-a');
  b = await token('rag-b');
}, 240_000);
afterAll(async () => {
  for (const c of clients) await c.dispose();
  for (const r of relay) await r.stop();
  await platform?.close();
});

const UPLOAD = `mutation ($file: Upload!, $title: String!, $level: String, $suiteId: String) {
  uploadDocument(file: $file, title: $title, level: $level, suiteId: $suiteId) { duplicate document { id title level suiteId status chunksCount } } }`;

/** The GraphQL multipart request spec, sent to the router as a browser client would. */
async function gqlUpload(tok: string, content: string, filename: string, variables: Record<string, unknown>) {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: UPLOAD, variables: { ...variables, file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([content], { type: 'text/markdown' }), filename);
  const res = await fetch(`${platform.gateway}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tok}`, 'apollo-require-preflight': 'true' },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function ledgerEvents(tok: string, type: string): Promise<any[]> {
  const res = await fetch(`${platform.gateway}/api/v1/ledger/events?event_type=${type}`, {
    headers: { authorization: `Bearer ${tok}` },
  });
  return ((await res.json()) as { events: any[] }).events;
}

test('upload through the router (multipart, streamed to the rag subgraph), then search, documents and ask; another tenant sees nothing', async () => {
  const up = await gqlUpload(a, POLICY_MD, 'travel.md', { title: 'Travel policy', level: 'suite', suiteId: 'travel' });
  expect(up.body.errors).toBeUndefined();
  const doc = up.body.data.uploadDocument.document;
  expect(doc).toMatchObject({ title: 'Travel policy', level: 'suite', suiteId: 'travel', status: 'active' });
  expect(doc.chunksCount).toBeGreaterThan(0);

  const SEARCH = `query ($q: String!, $s: String) { search(query: $q, suiteId: $s, topK: 3) { query hierarchyLevels chunks { content documentTitle heading score level document { id title } } } }`;
  const found = await gql(platform.gateway, SEARCH, {
    token: a,
    variables: { q: 'hotel allowance per night', s: 'travel' },
  });
  expect(found.body.errors).toBeUndefined();
  expect(found.body.data.search.hierarchyLevels).toEqual(['suite', 'platform']);
  expect(found.body.data.search.chunks[0]).toMatchObject({
    documentTitle: 'Travel policy',
    heading: 'Travel policy > Hotels',
    level: 'suite',
    document: { id: doc.id },
  });

  const list = await gql(platform.gateway, '{ documents(level: "suite") { total items { id title } } }', { token: a });
  expect(list.body.data.documents.items.map((d: any) => d.id)).toContain(doc.id);

  const ask = await gql(
    platform.gateway,
    `mutation { ask(query: "Which class is booked for short flights?", suiteId: "travel") { answer model chunksUsed documentSources cacheHit correlationId } }`,
    { token: a },
  );
  expect(ask.body.errors).toBeUndefined();
  expect(ask.body.data.ask).toMatchObject({ model: 'extractive', cacheHit: false, documentSources: ['Travel policy'] });
  expect(ask.body.data.ask.answer).toContain('economy');

  // Tenant rag-b: no documents, null by id, empty search, a 404 on delete.
  expect(
    (await gql(platform.gateway, '{ documents { total items { id } } }', { token: b })).body.data.documents,
  ).toEqual({ total: 0, items: [] });
  expect(
    (await gql(platform.gateway, `{ document(id: "${doc.id}") { id } }`, { token: b })).body.data.document,
  ).toBeNull();
  expect(
    (await gql(platform.gateway, SEARCH, { token: b, variables: { q: 'hotel allowance per night', s: 'travel' } })).body
      .data.search.chunks,
  ).toEqual([]);
  const del = await gql(platform.gateway, `mutation { deleteDocument(id: "${doc.id}") { id } }`, { token: b });
  expect(del.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  expect(
    (await gql(platform.gateway, `{ document(id: "${doc.id}") { id } }`, { token: a })).body.data.document,
  ).toEqual({ id: doc.id });

  const bad = await gql(platform.gateway, `{ search(query: "x", topK: 50) { query } }`, { token: a });
  expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'topK' });
});

test("the AI broker's use_rag path retrieves from the real retrieval service with the caller's token", async () => {
  await call(platform.urls.rag!, 'POST', '/v1/rag/ingest', a, {
    title: 'Gifts',
    content: 'Presents from suppliers worth more than fifty euros must be declared.',
    level: 'suite',
    suite_id: 'ethics',
  });
  await until(
    async () =>
      ((await call(platform.urls.rag!, 'GET', '/documents?suite_id=ethics', a)).body.documents ?? []).length === 1,
    'the ingested document',
  );
  const r = await call(platform.urls['ai-broker']!, 'POST', '/api/ai/inference', a, {
    prompt: 'Must supplier presents worth more than fifty euros be declared?',
    use_rag: true,
    context: { suite_id: 'ethics' },
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ model_used: 'extractive', rag_unavailable: false, sources: ['Gifts'] });
  expect(r.body.rag_chunks_used).toBeGreaterThan(0);
  expect(r.body.response).toContain('declared');
  // Another tenant asking the same gets no context from rag-a's documents.
  const theirs = await call(platform.urls['ai-broker']!, 'POST', '/api/ai/inference', b, {
    prompt: 'Must supplier presents worth more than fifty euros be declared?',
    use_rag: true,
    context: { suite_id: 'ethics' },
  });
  expect(theirs.body.rag_chunks_used).toBe(0);
});

test("the broker's use_rag with context.entity_id puts the entity's own passage first; without it the entity level is not searched", async () => {
  await call(platform.urls.rag!, 'POST', '/v1/rag/ingest', a, {
    title: 'Hospitality (platform)',
    content: 'Hospitality from suppliers such as dinners must be recorded in the gifts register.',
    level: 'platform',
  });
  await call(platform.urls.rag!, 'POST', '/v1/rag/ingest', a, {
    title: 'Hospitality (Acme)',
    content: 'At Acme, hospitality from suppliers such as dinners must be approved by the ethics officer beforehand.',
    level: 'entity',
    suite_id: 'ethics',
    module_id: 'gifts',
    entity_id: 'acme',
  });
  await until(
    async () =>
      ((await call(platform.urls.rag!, 'GET', '/documents?level=entity', a)).body.documents ?? []).length === 1,
    'the entity document',
  );
  await until(
    async () =>
      ((await call(platform.urls.rag!, 'GET', '/documents?level=platform', a)).body.documents ?? []).some(
        (d: any) => d.title === 'Hospitality (platform)',
      ),
    'the platform document',
  );
  const prompt = 'Do supplier dinners need the ethics officer to approve them?';
  const scoped = await call(platform.urls['ai-broker']!, 'POST', '/api/ai/inference', a, {
    prompt,
    use_rag: true,
    context: { suite_id: 'ethics', module_id: 'gifts', entity_id: 'acme' },
  });
  expect(scoped.status).toBe(200);
  expect(scoped.body.sources[0]).toBe('Hospitality (Acme)');
  const unscoped = await call(platform.urls['ai-broker']!, 'POST', '/api/ai/inference', a, {
    prompt,
    use_rag: true,
    context: { suite_id: 'ethics', module_id: 'gifts' },
  });
  expect(unscoped.body.sources).not.toContain('Hospitality (Acme)');
  // Another acme of another tenant: nothing of rag-a's.
  const theirs = await call(platform.urls['ai-broker']!, 'POST', '/api/ai/inference', b, {
    prompt,
    use_rag: true,
    context: { suite_id: 'ethics', module_id: 'gifts', entity_id: 'acme' },
  });
  expect(theirs.body.rag_chunks_used).toBe(0);
  // The same scope through the router's GraphQL field (InferenceContext.entityId).
  const viaGraph = await gql(platform.gateway, `mutation ($i: InferenceInput!) { inference(input: $i) { sources } }`, {
    token: a,
    variables: { i: { prompt, useRag: true, context: { suiteId: 'ethics', moduleId: 'gifts', entityId: 'acme' } } },
  });
  expect(viaGraph.body.errors).toBeUndefined();
  expect(viaGraph.body.data.inference.sources[0]).toBe('Hospitality (Acme)');
  const bad = await call(platform.urls['ai-broker']!, 'POST', '/api/ai/inference', a, {
    prompt,
    use_rag: true,
    context: { entity_id: '' },
  });
  expect(bad.status).toBe(422);
  expect(bad.body.detail[0].loc).toEqual(['body', 'context', 'entity_id']);
});

test('ingestion progress over graphql-ws through the router, to completed', async () => {
  const started = await gql(
    platform.gateway,
    `mutation { ingestDocument(title: "Onboarding", content: "# Laptops\\nNew hires receive a laptop on their first day.", level: "platform") { jobId status } }`,
    { token: a },
  );
  expect(started.body.errors).toBeUndefined();
  const jobId = started.body.data.ingestDocument.jobId;
  const client = createClient({
    url: `${platform.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${a}` },
    retryAttempts: 0,
  });
  clients.push(client);
  const items: any[] = [];
  const errors: unknown[] = [];
  let done = false;
  client.subscribe(
    {
      query: `subscription ($id: ID!) { ingestionProgress(jobId: $id) { jobId status percent document { title } } }`,
      variables: { id: jobId },
    },
    {
      next: (v) => (v.errors ? errors.push(v.errors) : items.push(v.data)),
      error: (e) => errors.push(e),
      complete: () => (done = true),
    },
  );
  await until(() => done || errors.length > 0, 'the progress subscription to end');
  expect(errors).toEqual([]);
  expect(items.at(-1).ingestionProgress).toMatchObject({
    jobId,
    status: 'completed',
    percent: 100,
    document: { title: 'Onboarding' },
  });
  // Another tenant cannot follow the job.
  const other = createClient({
    url: `${platform.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${b}` },
    retryAttempts: 0,
  });
  clients.push(other);
  const theirErrors: any[] = [];
  let theirsDone = false;
  other.subscribe(
    { query: `subscription ($id: ID!) { ingestionProgress(jobId: $id) { status } }`, variables: { id: jobId } },
    {
      next: (v) => {
        if (v.errors) theirErrors.push(...v.errors);
      },
      error: (e) => theirErrors.push(e),
      complete: () => (theirsDone = true),
    },
  );
  await until(() => theirsDone || theirErrors.length > 0, "the other tenant's subscription to end");
  expect(JSON.stringify(theirErrors)).toContain('NOT_FOUND');
});

test("rag_ingest, rag_query and rag_delete reach the tenant's own ledger through the outbox", async () => {
  const ingest = await call(platform.urls.rag!, 'POST', '/v1/rag/ingest', a, {
    title: 'Audit me',
    content: 'Audited text about retention.',
    level: 'suite',
    suite_id: 'audit',
  });
  let docId = '';
  await until(async () => {
    const p = (await call(platform.urls.rag!, 'GET', `/v1/rag/progress/${ingest.body.job_id}`, a)).body;
    docId = p.document_id ?? '';
    return p.status === 'completed';
  }, 'the ingest job');
  const q = await call(platform.urls.rag!, 'POST', '/query', a, {
    query: 'retention of audited text',
    suite_id: 'audit',
  });
  expect(q.status).toBe(200);
  expect((await call(platform.urls.rag!, 'DELETE', `/documents/${docId}`, a)).status).toBe(200);

  await until(
    async () => (await ledgerEvents(a, 'rag_ingest')).some((e) => e.event_data.document_id === docId),
    'rag_ingest in the ledger',
  );
  expect(
    (await ledgerEvents(a, 'rag_ingest')).find((e) => e.event_data.document_id === docId).event_data,
  ).toMatchObject({ chunks_created: 1, hierarchy_path: 'platform/suite:audit' });
  await until(
    async () => (await ledgerEvents(a, 'rag_query')).some((e) => e.correlation_id === q.body.correlation_id),
    'rag_query in the ledger',
  );
  expect(
    (await ledgerEvents(a, 'rag_query')).find((e) => e.correlation_id === q.body.correlation_id).event_data,
  ).toMatchObject({
    query: 'retention of audited text',
    hierarchy_levels: ['suite', 'platform'],
    results_count: expect.any(Number),
    confidence: expect.any(Number),
  });
  await until(
    async () => (await ledgerEvents(a, 'rag_delete')).some((e) => e.event_data.document_id === docId),
    'rag_delete in the ledger',
  );
  expect(JSON.stringify(await ledgerEvents(b, 'rag_ingest'))).not.toContain(docId);
});

test('the gateway lists the retrieval service', async () => {
  const res = await fetch(`${platform.gateway}/api/v1/services`, { headers: { authorization: `Bearer ${a}` } });
  expect(JSON.stringify(await res.json())).toContain('rag');
});
