// The built platform, as users run it: `npm run build`, then `node dist/launcher/start-all.js` as a
// child process under Node's own module loader (not jest's transformer, which compiles every
// dependency to CommonJS and so hides dual-package hazards: GraphQL uploads once failed only here,
// docs/decisions.md "The built platform is what we test"). One boot for the file, on a fresh data
// directory (PGlite) or a fresh PostgreSQL database when DATABASE_URL is set, every service on a
// free port through `<SERVICE>_PORT`. Each service's main path is walked as a client would, through
// the router and the REST ports, with fetch, multipart FormData and graphql-ws.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { invoicePage } from '../fixtures/ocr/invoice-pages';
import { freePort, repeatUntil, until } from '../support/waiting';
import { buildDist, createDistDatabase, startDist, type DistProcess } from './dist.support';

jest.setTimeout(300_000);

/** Every service of launcher/registry.ts, by the name its `<NAME>_PORT` is derived from. */
const SERVICE_NAMES = ['identity', 'ledger', 'schema-registry', 'rulepack-registry', 'packs-registry', 'validation', 'ai-broker', 'workflow', 'ocr', 'rag', 'gateway'];
const envName = (name: string) => name.toUpperCase().replace(/-/g, '_');

const AUDIT = process.env.DIST_MODULE_AUDIT === '1';
/** Waits for a delivery or a job: up to two minutes, as the whole test suite may share two cores. */
const PATIENT = { tries: 1200, everyMs: 100 };
let dataDir: string;
let database: { url: string; drop(): Promise<void> } | undefined;
let platform: DistProcess;
let single: DistProcess | undefined;
const url: Record<string, string> = {};
const clients: Client[] = [];
let router: string;
let admin: string;
let rita: string;

beforeAll(async () => {
  await buildDist();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dist-platform-'));
  database = await createDistDatabase();
  const env: NodeJS.ProcessEnv = {
    // Only what a user sets: a fresh database, free ports, a shared secret (for the start-one test).
    JWT_SECRET_KEY: 'dist-suite-secret-that-is-long-enough-for-hs256-0123456789',
    PASSWORD_SCRYPT_LOG_N: '10',
    OCR_WORKERS: '1',
    LOG_LEVEL: 'INFO',
    // The walk signs in with passwords; multi-factor sign-in has its own suites (test/e2e/identity/mfa.test.ts).
    // Without this, `npm start`'s default asks the admin and the reviewer to enrol a second factor.
    IDENTITY_MFA_REQUIRED_ROLES: 'none',
  };
  if (database) env.DATABASE_URL = database.url;
  else env.PGLITE_DIR = path.join(dataDir, 'pglite');
  for (const name of SERVICE_NAMES) {
    const port = await freePort();
    env[`${envName(name)}_PORT`] = String(port);
    url[name] = `http://127.0.0.1:${port}`;
  }
  router = url.gateway!;
  // DIST_MODULE_AUDIT=1: the same start observed by scripts/module-audit.cjs (the last test reads
  // its report; DIST_MODULE_AUDIT_OUT keeps a copy).
  if (AUDIT) env.MODULE_AUDIT_OUT = process.env.DIST_MODULE_AUDIT_OUT ?? path.join(dataDir, 'module-audit.json');
  platform = startDist(['node', ...(AUDIT ? ['--require', './scripts/module-audit.cjs'] : []), 'dist/launcher/start-all.js'], env);
  // Ready: every service answers /readyz (the gateway listens last, once the others do).
  for (const name of SERVICE_NAMES) await platform.waitFor(() => fetch(`${url[name]}/readyz`).then((r) => r.ok, () => false), `${name} /readyz`);
  admin = (await login('admin', 'admin-dev-password')).access_token;
}, 300_000);

afterAll(async () => {
  for (const c of clients) await Promise.resolve(c.dispose()).catch(() => undefined);
  await single?.stop();
  await platform?.stop();
  await database?.drop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

/** A step of the walk: on failure its error carries what the platform wrote to stderr. */
function step(name: string, fn: () => Promise<void>, timeout?: number): void {
  test(name, async () => {
    try {
      await fn();
    } catch (err) {
      throw platform ? platform.explain(err) : err;
    }
  }, timeout);
}

async function login(username: string, password: string): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${url.identity}/v1/auth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username, password }) });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

async function rest(base: string, method: string, route: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, body: parsed };
}

async function gql(token: string, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${router}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() };
}

/** The GraphQL multipart request spec, as a browser client sends it (one file, `variables.file`). */
async function gqlUpload(base: string, token: string, query: string, variables: Record<string, unknown>, file: { bytes: Uint8Array | string; filename: string; type: string }) {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables: { ...variables, file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([file.bytes], { type: file.type }), file.filename);
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

function ws(token: string): Client {
  const client = createClient({ url: `${router.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  clients.push(client);
  return client;
}

function collect(client: Client, query: string, variables: Record<string, unknown>) {
  const items: any[] = [];
  const errors: unknown[] = [];
  let completed = false;
  client.subscribe({ query, variables }, { next: (v) => (v.errors ? errors.push(v.errors) : items.push(v.data)), error: (e) => errors.push(e), complete: () => (completed = true) });
  return { items, errors, done: () => completed };
}

step('identity: password login, refresh with rotation, me through the router', async () => {
  const first = await login('admin', 'admin-dev-password');
  const refreshed = await rest(url.identity!, 'POST', '/v1/auth/refresh', undefined, { refresh_token: first.refresh_token });
  expect(refreshed.status).toBe(200);
  expect(refreshed.body).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
  expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
  // Rotation: the used refresh token is spent.
  expect((await rest(url.identity!, 'POST', '/v1/auth/refresh', undefined, { refresh_token: first.refresh_token })).status).toBe(401);
  const me = await gql(refreshed.body.access_token, '{ me { username tenantId roles } }');
  expect(me.body.errors).toBeUndefined();
  expect(me.body.data.me).toMatchObject({ username: 'admin', tenantId: 'default' });
  // A second user of the tenant, a reviewer, for the certification and the approval below.
  expect((await rest(url.identity!, 'POST', '/v1/roles?role_name=reviewer&scopes=read,write', admin)).status).toBeLessThan(300);
  expect((await rest(url.identity!, 'POST', '/v1/users', admin, { username: 'rita', password: 'rita-password-1', roles: ['reviewer'] })).status).toBeLessThan(300);
  rita = (await login('rita', 'rita-password-1')).access_token;
});

step('ledger: append through the gateway, verify the chain, and the ledgerEventAppended subscription', async () => {
  const feed = collect(ws(admin), 'subscription { ledgerEventAppended(eventType: "dist_check") { seq eventType eventData } }', {});
  // graphql-ws never acknowledges a subscribe: a delivery is the only proof it is live.
  const append = () => rest(router, 'POST', '/api/v1/ledger/append', admin, { tenant_id: 'default', event_type: 'dist_check', event_data: { n: 1 } });
  await repeatUntil(append, () => feed.items.length > 0 || feed.errors.length > 0, 'a ledger event over graphql-ws', { acts: 120, pollsPerAct: 10, everyMs: 100 });
  expect(feed.errors).toEqual([]);
  expect(feed.items[0].ledgerEventAppended).toMatchObject({ eventType: 'dist_check', eventData: { n: 1 } });
  const appended = await append();
  expect(appended.status).toBe(200);
  const verify = await rest(router, 'GET', '/api/v1/ledger/verify?tenant_id=default', admin);
  expect(verify.status).toBe(200);
  expect(verify.body).toMatchObject({ valid: true, error: null });
  expect(verify.body.total_events).toBeGreaterThanOrEqual(2);
});

const RULES = [{ rule_id: 'amount', type: 'FATAL', field: 'amount', operator: '>', value: 0, error_message: 'amount must be positive' }];

step('rule packs: an inline pack executed; a certified pack drafted, submitted, certified by another user and executed by id', async () => {
  const inline = await rest(router, 'POST', '/api/v1/rulepacks/execute', admin, { rule_pack: { metadata: { pack_id: 'inline-kyc', version: '1.0.0' }, rules: RULES }, payload: { amount: -1 } });
  expect(inline.status).toBe(200);
  expect(inline.body.result).toMatchObject({ valid: false });
  expect(inline.body.result.errors).toEqual([expect.objectContaining({ rule_id: 'amount', severity: 'FATAL' })]);

  const pack = { metadata: { pack_id: 'dist-kyc', version: '1.0.0' }, rules: RULES };
  const registry = url['rulepack-registry']!;
  expect((await rest(registry, 'POST', '/rulepacks', admin, { pack })).status).toBeLessThan(300);
  expect((await rest(registry, 'POST', '/rulepacks/dist-kyc/versions/1.0.0/submit', admin, {})).status).toBeLessThan(300);
  // The author cannot certify their own pack; another reviewer of the tenant can.
  expect((await rest(registry, 'POST', '/rulepacks/dist-kyc/versions/1.0.0/certify', admin, {})).status).toBe(403);
  const certified = await rest(registry, 'POST', '/rulepacks/dist-kyc/versions/1.0.0/certify', rita, {});
  expect(certified.status).toBeLessThan(300);
  expect(certified.body).toMatchObject({ status: 'certified', signature: expect.any(String) });
  const byId = await rest(router, 'POST', '/api/v1/rulepacks/execute', admin, { rule_pack_id: 'dist-kyc', payload: { amount: 5 } });
  expect(byId.status).toBe(200);
  expect(byId.body).toMatchObject({ rule_pack_version: '1.0.0', pack_source: 'registry', result: { valid: true } });
});

step('schema registry: a schema registered through the router, read back as latest over REST', async () => {
  const order = { type: 'object', properties: { total: { type: 'number', minimum: 0 } }, required: ['total'] };
  const reg = await gql(admin, 'mutation ($d: JSON!) { registerSchema(name: "dist-order", version: "1.0.0", definition: $d, kind: DATA) { name version owner } }', { d: order });
  expect(reg.body.errors).toBeUndefined();
  expect(reg.body.data.registerSchema).toMatchObject({ name: 'dist-order', version: '1.0.0', owner: 'default' });
  const latest = await rest(url['schema-registry']!, 'GET', '/schemas/dist-order/versions/latest', admin);
  expect(latest.status).toBe(200);
  expect(latest.body).toMatchObject({ name: 'dist-order', version: '1.0.0', schema: order });
});

step('packs registry: a workflow pack submitted through the gateway, certified by another user, then run by the workflow service', async () => {
  const pack = { metadata: { pack_id: 'dist-flow', version: '1.0.0', workflow_type: 'operational', name: 'Dist flow', created_by: 'tests' }, steps: [{ step: 'note', type: 'action', action: 'record' }] };
  const submitted = await rest(router, 'POST', '/api/v1/packs', admin, { artifact: pack, format: 'json' });
  expect(submitted.status).toBe(201);
  expect(submitted.body).toMatchObject({ pack_id: 'dist-flow', status: 'draft', author: 'admin' });
  expect((await rest(url['packs-registry']!, 'POST', '/packs/dist-flow/versions/1.0.0/certify', rita)).status).toBe(200);
  const run = await rest(router, 'POST', '/api/v1/workflows/execute', admin, { workflow_type: 'operational', workflow_pack_id: 'dist-flow', payload: {} });
  expect(run.status).toBe(200);
  expect(run.body).toMatchObject({ status: 'completed', pack_source: 'registry', pack_version: '1.0.0' });
});

step('workflow: a legal workflow waits for a human, status and inbox over graphql-ws, approved by another user', async () => {
  const EXECUTE = 'mutation ($input: ExecuteWorkflowInput!) { executeWorkflow(input: $input) { status workflowId approvalTaskId requiresHumanApproval } }';
  const inbox = collect(ws(rita), 'subscription { approvalRequested { cursor event task { id workflowId status workflowType } } }', {});
  let run: any;
  await repeatUntil(async () => {
    const started = await gql(admin, EXECUTE, { input: { workflowType: 'legal', payload: { property: 'P-1' } } });
    expect(started.body.errors).toBeUndefined();
    run = started.body.data.executeWorkflow;
  }, () => inbox.items.some((i) => i.approvalRequested.task.id === run?.approvalTaskId) || inbox.errors.length > 0, 'the approval inbox announcement', { acts: 120, pollsPerAct: 10, everyMs: 100 });
  expect(inbox.errors).toEqual([]);
  expect(run).toMatchObject({ status: 'PENDING_APPROVAL', requiresHumanApproval: true, approvalTaskId: expect.any(String) });

  const feed = collect(ws(admin), 'subscription ($id: ID!, $after: Int) { workflowStatusChanged(workflowId: $id, afterVersion: $after) { version event status } }', { id: run.workflowId, after: 0 });
  await until(() => feed.items.some((i) => i.workflowStatusChanged.event === 'approval.requested') || feed.errors.length > 0, 'the replayed approval.requested', PATIENT);
  const decided = await gql(rita, 'mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve", notes: "ok") { workflowStatus task { status reviewer } } }', { id: run.approvalTaskId });
  expect(decided.body.errors).toBeUndefined();
  expect(decided.body.data.decideApproval).toMatchObject({ workflowStatus: 'COMPLETED', task: { status: 'approved', reviewer: 'rita' } });
  await until(() => feed.done() || feed.errors.length > 0, 'the status subscription to end', PATIENT);
  expect(feed.errors).toEqual([]);
  expect(feed.items.at(-1).workflowStatusChanged.status).toBe('COMPLETED');
  const status = await rest(url.workflow!, 'GET', `/status/${run.workflowId}`, admin);
  expect(status.status).toBe(200);
  expect(JSON.stringify(status.body)).toContain('completed');
});

step('AI broker: inference on the built-in model, PII redacted, over REST and through the router', async () => {
  const SSN = '487-65-4320';
  const EMAIL = 'alice.secret@example.com';
  const r = await rest(url['ai-broker']!, 'POST', '/api/ai/inference', admin, { prompt: `Customer ${SSN} writes from ${EMAIL}. Repeat it.` });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ model_used: 'extractive' });
  expect(r.body.redactions.input).toMatchObject({ ssn: 1, email: 1 });
  expect(JSON.stringify(r.body)).not.toContain(SSN);
  expect(JSON.stringify(r.body)).not.toContain(EMAIL);
  const viaRouter = await gql(admin, 'mutation ($i: InferenceInput!) { inference(input: $i) { response modelUsed redactions } }', { i: { prompt: `Call me about ${SSN}.` } });
  expect(viaRouter.body.errors).toBeUndefined();
  expect(viaRouter.body.data.inference).toMatchObject({ modelUsed: 'extractive', redactions: { input: { ssn: 1 } } });
  expect(viaRouter.body.data.inference.response).not.toContain(SSN);
});

const NOTE = `# Expense policy

## Taxis
Taxi receipts above forty euros need the signature of a line manager before they are refunded.
`;

const UPLOAD = 'mutation ($file: Upload!, $title: String!) { uploadDocument(file: $file, title: $title) { duplicate document { id title status chunksCount } } }';

step('retrieval: a Markdown document uploaded by GraphQL multipart through the router and by REST, then found by a query', async () => {
  const up = await gqlUpload(router, admin, UPLOAD, { title: 'Expense policy' }, { bytes: NOTE, filename: 'expenses.md', type: 'text/markdown' });
  expect(up.body.errors).toBeUndefined();
  expect(up.status).toBe(200);
  const doc = up.body.data.uploadDocument.document;
  expect(doc).toMatchObject({ title: 'Expense policy', status: 'active' });
  expect(doc.chunksCount).toBeGreaterThan(0);

  const form = new FormData();
  form.append('title', 'Leave policy');
  form.append('file', new Blob(['# Leave policy\n\nParents get sixteen weeks of paid leave.\n'], { type: 'text/markdown' }), 'leave.md');
  const res = await fetch(`${url.rag}/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: form });
  expect(res.status).toBeLessThan(300);
  expect(JSON.stringify(await res.json())).toContain('Leave policy');

  const found = await gql(admin, 'query ($q: String!) { search(query: $q, topK: 3) { chunks { documentTitle content document { id } } } }', { q: 'taxi receipt signature line manager' });
  expect(found.body.errors).toBeUndefined();
  expect(found.body.data.search.chunks[0]).toMatchObject({ documentTitle: 'Expense policy', document: { id: doc.id } });
  const retrieved = await rest(url.rag!, 'POST', '/retrieve', admin, { query: 'paid leave for parents', top_k: 1 });
  expect(retrieved.status).toBe(200);
  expect(retrieved.body.chunks[0].document_title).toBe('Leave policy');
});

step('retrieval: the ingestionProgress subscription over graphql-ws, to completed', async () => {
  const started = await gql(admin, 'mutation { ingestDocument(title: "Onboarding", content: "# Laptops\\nNew hires receive a laptop on their first day.") { jobId status } }');
  expect(started.body.errors).toBeUndefined();
  const jobId = started.body.data.ingestDocument.jobId;
  const feed = collect(ws(admin), 'subscription ($id: ID!) { ingestionProgress(jobId: $id) { jobId status percent } }', { id: jobId });
  await until(() => feed.done() || feed.errors.length > 0, 'the ingestion subscription to end', PATIENT);
  expect(feed.errors).toEqual([]);
  expect(feed.items.at(-1).ingestionProgress).toMatchObject({ jobId, status: 'completed', percent: 100 });
});

const JOB = 'id status progress { pagesDone pageCount }';

step('OCR: a PNG page by GraphQL multipart through the router (progress over graphql-ws) and by REST, both jobs finishing', async () => {
  const page = invoicePage(31);
  const up = await gqlUpload(router, admin, `mutation ($file: Upload!) { extract(file: $file) { ${JOB} } }`, {}, { bytes: new Uint8Array(page.png), filename: 'page.png', type: 'image/png' });
  expect(up.body.errors).toBeUndefined();
  const id = up.body.data.extract.id;
  const feed = collect(ws(admin), `subscription ($id: ID!) { ocrJobProgress(id: $id) { ${JOB} } }`, { id });
  await until(() => feed.done() || feed.errors.length > 0, 'the OCR progress subscription to end', { tries: 2400, everyMs: 50 });
  expect(feed.errors).toEqual([]);
  expect(feed.items.at(-1).ocrJobProgress).toMatchObject({ id, status: 'COMPLETED', progress: { pagesDone: 1, pageCount: 1 } });
  const byId = await gql(admin, 'query ($id: ID!) { ocrJob(id: $id) { status extractedText } }', { id });
  expect(byId.body.errors).toBeUndefined();
  expect(byId.body.data.ocrJob.extractedText).toContain('INV-2026');

  const restPage = invoicePage(32);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(restPage.png)], { type: 'image/png' }), 'rest.png');
  const res = await fetch(`${url.ocr}/extract`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: form });
  expect(res.status).toBe(202);
  const jobId = ((await res.json()) as { job_id: string }).job_id;
  let job: any;
  await until(async () => {
    job = (await rest(url.ocr!, 'GET', `/jobs/${jobId}`, admin)).body;
    return job && !['pending', 'processing'].includes(job.status);
  }, `OCR job ${jobId} to finish`, { tries: 2400, everyMs: 50 });
  expect(job).toMatchObject({ status: 'completed', tenant_id: 'default' });
  expect(job.extracted_text).toContain('INV-2026');
});

step('uploads straight at the subgraphs (no router): uploadDocument on rag and extract on ocr', async () => {
  const up = await gqlUpload(url.rag!, admin, UPLOAD, { title: 'Expense policy again' }, { bytes: NOTE.replace('forty', 'fifty'), filename: 'expenses-2.md', type: 'text/markdown' });
  expect(up.body.errors).toBeUndefined();
  expect(up.body.data.uploadDocument.document).toMatchObject({ title: 'Expense policy again' });
  const page = invoicePage(33);
  const ocr = await gqlUpload(url.ocr!, admin, `mutation ($file: Upload!) { extract(file: $file) { ${JOB} } }`, {}, { bytes: new Uint8Array(page.png), filename: 'direct.png', type: 'image/png' });
  expect(ocr.body.errors).toBeUndefined();
  expect(ocr.body.data.extract.id).toEqual(expect.any(String));
});

// `npm run service -- <name>` from dist/: separate processes share state through PostgreSQL only.
const withPostgres = process.env.DATABASE_URL ? step : (name: string) => test.skip(name, () => undefined);
withPostgres('npm run service -- identity starts from dist/ on the same database; its tokens work at the router', async () => {
  const port = await freePort();
  single = startDist(['npm', 'run', 'service', '--', 'identity'], { ...platform.env, IDENTITY_PORT: String(port) });
  await single.waitFor(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false), 'the lone identity /readyz');
  const res = await fetch(`http://127.0.0.1:${port}/v1/auth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'rita', password: 'rita-password-1' }) });
  expect(res.status).toBe(200);
  const token = ((await res.json()) as { access_token: string }).access_token;
  const me = await gql(token, '{ me { username } }');
  expect(me.body.data.me).toEqual({ username: 'rita' });
});

// Opt-in (DIST_MODULE_AUDIT=1): after the whole walk, no package may have both its ES and its
// CommonJS build loaded in the platform's process (docs/decisions.md, "Dual-package hazards").
(AUDIT ? step : (name: string) => test.skip(name, () => undefined))('module audit: no package loaded twice (ES and CommonJS builds) during the walk', async () => {
  for (const c of clients.splice(0)) await c.dispose();
  expect(await platform.stop()).toEqual({ code: 0, signal: null });
  const report = JSON.parse(readFileSync(platform.env.MODULE_AUDIT_OUT!, 'utf8')) as { hazards: unknown[]; esmImports: string[] };
  expect(report.hazards).toEqual([]);
});
