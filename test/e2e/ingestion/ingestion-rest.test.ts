// The ingestion service's REST door on a real database with the events bus: pipelines as data
// (JSON and YAML, checked against the ingestion-pipeline schema, versioned), a pushed CSV
// normalised, checked, scrubbed (the raw SSN, e-mail, phone and name never reach staging),
// quarantined with reasons, staged with lineage, its manifest in the outbox for the ledger and
// ingestion.completed on the bus; the same content again lands nothing twice; NDJSON and JSON
// streamed bodies; hostile input (too large, a line too long, too many columns) fails clearly
// with ingestion.failed and the service keeps serving; a source schema change quarantines the
// batch until a new version; another tenant sees and touches none of it.
import { INGESTION_COMPLETED, INGESTION_FAILED } from '../../../platform/contracts/pipeline.events';
import { contractBus } from '../../../platform/events/contract-bus';
import { createLogger } from '../../../platform/logging/logger';
import { ingestionService } from '../../../services/ingestion';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, customersPipeline, CUSTOMERS_CSV, push, token } from './ingestion.support';

jest.setTimeout(120_000);

const A = 'ing-a';
const B = 'ing-b';
let h: Harness;
let url: string;
let a: string;
let b: string;
const completed: any[] = [];
const failed: any[] = [];

beforeAll(async () => {
  h = await startServices([ingestionService], {
    REQUIRE_AUTH: 'true',
    INGESTION_MAX_BYTES: '200000',
    INGESTION_MAX_RECORD_BYTES: '4096',
    INGESTION_MAX_COLUMNS: '50',
    NOTICE_RELAY_POLL_MS: '50',
    // No schema registry runs here: the pipeline schema comes from the contract file.
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
    // Nor a workflow service: a source schema change cannot be sent for approval (`unrequested`).
    WORKFLOW_URL: 'http://127.0.0.1:1',
  });
  url = h.services.ingestion!.url;
  a = await token(A);
  b = await token(B);
  const bus = contractBus(h.bus, createLogger('ERROR', 'test'));
  await bus.subscribe(INGESTION_COMPLETED, (p) => void completed.push(p));
  await bus.subscribe(INGESTION_FAILED, (p) => void failed.push(p));
});

afterAll(async () => {
  await h?.close();
});

describe('pipelines as data', () => {
  it('creates a pipeline from JSON, refuses a definition the schema or JSONata refuses, and versions it', async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('versioned'),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'versioned', version: 1, source_kind: 'rest_push', tenant_id: A });

    const again = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('versioned'),
    });
    expect(again.status).toBe(409);

    const bad = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: { ...customersPipeline('bad'), format: { type: 'xml-ish' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'definition', 'format', 'type']);

    const badExpr = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('bad-expr', { mapping: { customer_id: '$number(id' } }),
    });
    expect(badExpr.status).toBe(422);
    expect(badExpr.body.detail[0].loc).toEqual(['body', 'mapping', 'customer_id']);

    const plainSecret = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('plain-secret', { source: { kind: 'sftp', password: 'hunter2' } }),
    });
    expect(plainSecret.status).toBe(422);

    const v2 = await call(url, a, 'PUT', `/api/ingestion/pipelines/${created.body.id}`, {
      definition: customersPipeline('versioned', { batch_size: 10 }),
    });
    expect(v2.status).toBe(200);
    expect(v2.body.version).toBe(2);
    const versions = await call(url, a, 'GET', `/api/ingestion/pipelines/${created.body.id}/versions`);
    expect(versions.body.versions.map((v: any) => [v.version, v.definition.batch_size])).toEqual([
      [1, 2],
      [2, 10],
    ]);
  });

  it('creates a pipeline from YAML and refuses a YAML alias bomb', async () => {
    const yaml = [
      'name: from-yaml',
      'source: { kind: rest_push }',
      'format: { type: ndjson }',
      'mapping:',
      '  id: "$string(id)"',
      'target:',
      '  dataset: yaml-things',
      '  schema: { type: object, required: [id] }',
    ].join('\n');
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', { yaml });
    expect(created.status).toBe(201);
    expect(created.body.definition.format).toEqual({ type: 'ndjson' });
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = i === 0 ? 'a' : `b${i - 1}`;
        return `b${i}: &b${i} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
      }),
    ].join('\n');
    const refused = await call(url, a, 'POST', '/api/ingestion/pipelines', { yaml: bomb });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'yaml']);
  });
});

describe('a pushed CSV', () => {
  let pipelineId: string;
  let batch: any;

  beforeAll(async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', { definition: customersPipeline() });
    pipelineId = created.body.id;
    const pushed = await push(url, a, pipelineId, CUSTOMERS_CSV, { multipart: 'customers-2026-11.csv' });
    expect(pushed.status).toBe(200);
    batch = pushed.body;
  });

  it('stages the good rows scrubbed, with lineage, and quarantines the bad one with its reason', async () => {
    expect(batch).toMatchObject({
      status: 'completed',
      source_name: 'customers-2026-11.csv',
      progress: { rows_read: 4, rows_staged: 3, rows_quarantined: 1 },
    });
    const records = await call(url, a, 'GET', `/api/ingestion/batches/${batch.id}/records`);
    expect(records.body.records.map((r: any) => [r.offset, r.batch_id, r.source, r.dataset])).toEqual([
      [0, batch.id, 'customers-2026-11.csv', 'customers'],
      [1, batch.id, 'customers-2026-11.csv', 'customers'],
      [3, batch.id, 'customers-2026-11.csv', 'customers'],
    ]);
    const first = records.body.records[0].data;
    expect(first.customer_id).toBe(1);
    expect(first.balance).toBe(10.5);
    expect(first.ssn).toBe('***-**-****');
    expect(first.email).toMatch(/^tok_[0-9a-f]{32}$/);
    expect(first.full_name).toMatch(/^\[full_name:sha256:[0-9a-f]{64}\]$/);
    expect(first).not.toHaveProperty('phone');
    // No raw value anywhere in staging or the quarantine.
    const stored = await h.db.sql.query<{ t: string }>(
      `SELECT string_agg(data::text, ' ') AS t FROM ingestion_staged_records WHERE batch_id = $1::uuid`,
      [batch.id],
    );
    const quarantined = await h.db.sql.query<{ t: string }>(
      `SELECT string_agg(coalesce(record::text, '') || reason, ' ') AS t FROM ingestion_quarantine WHERE batch_id = $1::uuid`,
      [batch.id],
    );
    for (const raw of [
      '123-45-6789',
      'ada@example.com',
      'ADA@example.com',
      '555 0101',
      'Lovelace',
      'Hopper',
      '111-22-3333',
    ]) {
      expect(stored.rows[0]!.t).not.toContain(raw);
      expect(quarantined.rows[0]!.t).not.toContain(raw);
    }
    const q = await call(url, a, 'GET', `/api/ingestion/batches/${batch.id}/quarantine`);
    expect(q.body.records).toEqual([
      expect.objectContaining({
        offset: 2,
        reason: 'target schema: balance must be >= 0',
        raw_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
  });

  it('writes the manifest for the ledger and emits ingestion.completed, with OpenLineage run events', async () => {
    expect(batch.manifest).toMatchObject({
      run_id: batch.run_id,
      batch_id: batch.id,
      row_count: 3,
      rejected: 1,
      content_sha256: batch.content_sha256,
      schema_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(Object.keys(batch.manifest.column_checksums).sort()).toEqual([
      'balance',
      'customer_id',
      'email',
      'full_name',
      'ssn',
    ]);
    const outbox = await h.db.sql.query<{ event_data: any }>(
      `SELECT event_data FROM outbox_events WHERE service = 'ingestion' AND event_type = 'ingestion_batch' AND tenant_id = $1`,
      [A],
    );
    const manifests = outbox.rows.map((r) =>
      typeof r.event_data === 'string' ? JSON.parse(r.event_data) : r.event_data,
    );
    expect(manifests).toContainEqual(batch.manifest);
    await until(async () => completed.some((c) => c.batch_id === batch.id), 'ingestion.completed on the bus');
    expect(completed.find((c) => c.batch_id === batch.id)).toMatchObject({
      tenant_id: A,
      pipeline_id: pipelineId,
      run_id: batch.run_id,
      dataset: 'customers',
      source_kind: 'rest_push',
      records: 3,
      rejected: 1,
      content_sha256: batch.content_sha256,
      lineage: {
        inputs: [{ name: 'customers-2026-11.csv' }],
        outputs: [{ namespace: `ingestion://${A}`, name: 'customers' }],
      },
    });
    const lineage = await call(url, a, 'GET', `/api/ingestion/batches/${batch.id}/lineage`);
    expect(lineage.body.events.map((e: any) => [e.eventType, e.run.runId, e.job.name])).toEqual([
      ['START', batch.run_id, 'customers'],
      ['COMPLETE', batch.run_id, 'customers'],
    ]);
  });

  it('answers the same content again with the same batch and stages nothing twice', async () => {
    const again = await push(url, a, pipelineId, CUSTOMERS_CSV, { contentType: 'text/csv' });
    expect(again.body.id).toBe(batch.id);
    const count = await h.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ingestion_staged_records WHERE batch_id = $1::uuid`,
      [batch.id],
    );
    expect(count.rows[0]!.n).toBe(3);
  });

  it('quarantines a batch whose source columns changed, until a new version of the pipeline accepts them', async () => {
    const changed = CUSTOMERS_CSV.replace(
      'id,first,last,email,ssn,phone,balance',
      'id,first,last,email,ssn,mobile,balance',
    );
    const pushed = await push(url, a, pipelineId, changed);
    expect(pushed.body.status).toBe('quarantined');
    expect(pushed.body.error).toContain('added [mobile], removed [phone]');
    // The workflow service is down here: the quarantine does not wait on it, and the change says so.
    const change = await call(url, a, 'GET', `/api/ingestion/batches/${pushed.body.id}/schema-change`);
    expect(change.body).toMatchObject({ status: 'unrequested', approval_task_id: null, added: ['mobile'] });
    await until(
      async () => failed.some((f) => f.batch_id === pushed.body.id && f.status === 'quarantined'),
      'ingestion.failed',
    );
    const current = await call(url, a, 'GET', `/api/ingestion/pipelines/${pipelineId}`);
    const v2 = await call(url, a, 'PUT', `/api/ingestion/pipelines/${pipelineId}`, {
      definition: { ...current.body.definition, mapping: { ...current.body.definition.mapping, phone: 'mobile' } },
    });
    expect(v2.body.version).toBe(2);
    const approved = await push(url, a, pipelineId, changed);
    expect(approved.body).toMatchObject({ id: pushed.body.id, status: 'completed', pipeline_version: 2 });
  });
});

describe('streamed NDJSON and JSON', () => {
  it('reads NDJSON and JSON bodies', async () => {
    const definition = {
      name: 'events',
      source: { kind: 'rest_push' },
      format: { type: 'ndjson' },
      mapping: { id: 'id', kind: '$uppercase(kind)', amount: 'amount.value' },
      target: {
        dataset: 'events',
        schema: { type: 'object', required: ['id', 'kind'], properties: { amount: { type: 'number' } } },
      },
    };
    const p = await call(url, a, 'POST', '/api/ingestion/pipelines', { definition });
    const ndjson = '{"id":"e1","kind":"open","amount":{"value":3}}\n\n{"id":"e2","kind":"close"}\r\n{"id":"e3"}\n';
    const pushed = await push(url, a, p.body.id, ndjson, { contentType: 'application/x-ndjson' });
    expect(pushed.body).toMatchObject({
      status: 'completed',
      progress: { rows_read: 3, rows_staged: 2, rows_quarantined: 1 },
    });
    const records = await call(url, a, 'GET', `/api/ingestion/batches/${pushed.body.id}/records`);
    expect(records.body.records.map((r: any) => r.data)).toEqual([
      { id: 'e1', kind: 'OPEN', amount: 3 },
      { id: 'e2', kind: 'CLOSE' },
    ]);

    const json = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: { ...definition, name: 'events-json', format: { type: 'json' } },
    });
    const body = JSON.stringify([
      { id: 'j1', kind: 'x' },
      { id: 'j2', kind: 'y', amount: { value: 1.5 } },
    ]);
    const pushedJson = await push(url, a, json.body.id, body, { contentType: 'application/json' });
    expect(pushedJson.body).toMatchObject({ status: 'completed', progress: { rows_staged: 2 } });
  });
});

describe('hostile input', () => {
  let pipelineId: string;
  beforeAll(async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('hostile'),
    });
    pipelineId = created.body.id;
  });

  it('refuses a source over the size limit with 413, streamed or declared', async () => {
    const big = 'id,first,last,email,ssn,phone,balance\n' + '1,a,b,c,d,e,1\n'.repeat(20_000);
    const res = await push(url, a, pipelineId, big);
    expect(res.status).toBe(413);
    const multipart = await push(url, a, pipelineId, big, { multipart: 'big.csv' });
    expect(multipart.status).toBe(413);
  });

  it('fails a batch with a line over the record limit, says why, emits ingestion.failed, and keeps serving', async () => {
    const long = `id,first,last,email,ssn,phone,balance\n1,${'x'.repeat(10_000)},b,c,d,e,1\n`;
    const res = await push(url, a, pipelineId, long);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(/CSV: .*max_record_size|record/i);
    const batches = await call(url, a, 'GET', `/api/ingestion/pipelines/${pipelineId}/batches`);
    const failedBatch = batches.body.batches.find((x: any) => x.status === 'failed');
    expect(failedBatch.error).toBeTruthy();
    await until(
      async () => failed.some((f) => f.batch_id === failedBatch.id && f.status === 'failed'),
      'ingestion.failed',
    );
    const lineage = await call(url, a, 'GET', `/api/ingestion/batches/${failedBatch.id}/lineage`);
    expect(lineage.body.events.map((e: any) => e.eventType)).toEqual(['START', 'FAIL']);
    expect((await call(url, a, 'GET', '/api/ingestion/pipelines')).status).toBe(200);
  });

  it('refuses a CSV with more columns than allowed', async () => {
    const wide =
      Array.from({ length: 100 }, (_, i) => `c${i}`).join(',') +
      '\n' +
      Array.from({ length: 100 }, () => '1').join(',') +
      '\n';
    const res = await push(url, a, pipelineId, wide);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toContain('columns');
  });

  it('refuses malformed NDJSON with the line it broke on', async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: { ...customersPipeline('hostile-nd'), format: { type: 'ndjson' } },
    });
    const res = await push(url, a, created.body.id, '{"id":1}\n{"id":\n', { contentType: 'application/x-ndjson' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toContain('NDJSON line 2');
  });
});

describe('tenancy', () => {
  it("lets another tenant neither see nor push to nor change a tenant's pipelines and batches", async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('private'),
    });
    const id = created.body.id;
    const pushed = await push(url, a, id, CUSTOMERS_CSV);
    const batchId = pushed.body.id;
    expect((await call(url, b, 'GET', `/api/ingestion/pipelines/${id}`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/pipelines/${id}/versions`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/pipelines/${id}/batches`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/batches/${batchId}`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/batches/${batchId}/records`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/batches/${batchId}/quarantine`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/batches/${batchId}/lineage`)).status).toBe(404);
    expect((await push(url, b, id, CUSTOMERS_CSV.replace('Ada', 'Eve'))).status).toBe(404);
    expect(
      (await call(url, b, 'PUT', `/api/ingestion/pipelines/${id}`, { definition: customersPipeline('private') }))
        .status,
    ).toBe(404);
    expect((await call(url, b, 'DELETE', `/api/ingestion/pipelines/${id}`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/pipelines?tenant_id=${A}`)).status).toBe(403);
    expect((await call(url, b, 'GET', '/api/ingestion/pipelines')).body.pipelines).toEqual([]);
    // A's pipeline is intact.
    expect((await call(url, a, 'GET', `/api/ingestion/pipelines/${id}`)).body.version).toBe(1);
  });

  it('deletes a pipeline (404 afterwards) and keeps its batches readable', async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('to-delete'),
    });
    const pushed = await push(url, a, created.body.id, CUSTOMERS_CSV);
    expect((await call(url, a, 'DELETE', `/api/ingestion/pipelines/${created.body.id}`)).status).toBe(204);
    expect((await call(url, a, 'GET', `/api/ingestion/pipelines/${created.body.id}`)).status).toBe(404);
    expect((await call(url, a, 'GET', `/api/ingestion/batches/${pushed.body.id}`)).body.status).toBe('completed');
  });
});
