// DataFlow over real HTTP on a real database: the built-in GTAS pack reconciling a trial balance
// against vouchers (breaks by REST and GraphQL, hashed evidence, gtas_reconciliation in the
// outbox, dataflow.reconciliation_completed on the bus), idempotent runs per trigger, an
// ingestion.completed event triggering a run, a certified pack from the packs registry with
// JSONata and SQL transforms and tolerance rules, the hostile cases (cross-tenant and writing SQL,
// endless SQL, looping JSONata, mismatched schemas), and tenant isolation.
import { randomUUID } from 'node:crypto';
import { AccessTokens } from '../../../platform/auth/jwt';
import { DataflowClient } from '../../../platform/clients/dataflow.client';
import { createEventsStore } from '../../../platform/events/backbone/backbone.store';
import { seedPlatformTopics } from '../../../platform/events/backbone/platform-topics';
import {
  DATAFLOW_RECONCILIATION_COMPLETED,
  INGESTION_COMPLETED,
  type DataflowReconciliationCompleted,
} from '../../../platform/contracts/pipeline.events';
import { packsRegistryService } from '../../../services/packs-registry';
import { defineDataflowService } from '../../../services/dataflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(120_000);

let h: Harness;
let url: string;
let registryUrl: string;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const token = (tenantId: string, username = `user-${tenantId}`, roles = ['user']) =>
  tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
const notices: DataflowReconciliationCompleted[] = [];

let registry: Harness;
beforeAll(async () => {
  registry = await startServices([packsRegistryService]);
  registryUrl = registry.services['packs-registry']!.url;
  h = await startServices(
    [
      defineDataflowService({
        // No ingestion service here: the batches' records are staged by the test (the registry's 404: nothing to land).
        config: { sqlTimeoutMs: 300, jsonataTimeoutMs: 5000, packsRegistryUrl: registryUrl, ingestionUrl: registryUrl },
        consumer: { pollMs: 100, backoffMs: 100 },
      }),
    ],
    {},
    { db: registry.db, bus: registry.bus },
  );
  url = h.services.dataflow!.url;
  await h.bus.subscribe(DATAFLOW_RECONCILIATION_COMPLETED.topic, (m) => {
    notices.push(m as DataflowReconciliationCompleted);
  });
});
afterAll(async () => {
  await h?.close();
  await registry?.close();
});

type Tok = Promise<string> | undefined;
async function call(base: string, method: string, route: string, pending: Tok, body?: unknown) {
  const tok = await pending;
  const res = await fetch(base + route, {
    method,
    headers: {
      ...(tok ? { authorization: `Bearer ${tok}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
}
const stage = (tok: Tok, dataset: string, records: { key: string; data: Record<string, unknown> }[]) =>
  call(url, 'POST', `/api/dataflow/datasets/${dataset}/records`, tok, { records });
const run = (tok: Tok, body: Record<string, unknown>) => call(url, 'POST', '/api/dataflow/runs', tok, body);

const acme = token('acme');
const other = token('other');

async function stageGtas(tok: Tok) {
  await stage(tok, 'trial_balance', [
    { key: '1010', data: { account: '1010', amount: 150.0, trial_balance_id: 'TB-2026-09' } },
    { key: '2020', data: { account: '2020', amount: 80.0, trial_balance_id: 'TB-2026-09' } },
    { key: '3030', data: { account: '3030', amount: 10.0, trial_balance_id: 'TB-2026-09' } },
  ]);
  await stage(tok, 'vouchers', [
    { key: 'v1', data: { account: '1010', amount: 100.0 } },
    { key: 'v2', data: { account: '1010', amount: 50.0 } },
    { key: 'v3', data: { account: '2020', amount: 75.0 } },
    { key: 'v4', data: { account: '4040', amount: 5.0 } },
  ]);
}

describe('the built-in GTAS pack', () => {
  let runId: string;

  it('reconciles a trial balance against vouchers: matched, breaks, unmatched on both sides', async () => {
    await stageGtas(acme);
    const res = await run(acme, { pack_id: 'builtin.gtas-reconciliation', idempotency_key: 'gtas-1' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    const r = res.body.result.reconciliations[0];
    expect(r).toMatchObject({
      name: 'gtas',
      result: 'failed',
      matched: { count: 1, total: 150 },
      breaks: { count: 1, total: 80 },
      unmatched_left: { count: 1, total: 10 },
      unmatched_right: { count: 1 },
    });
    expect(res.body.result.transforms).toEqual([{ name: 'voucher_totals', records: 3 }]);
    runId = res.body.run_id;
  });

  it('is idempotent per trigger: the same key answers the same run', async () => {
    const again = await run(acme, { pack_id: 'builtin.gtas-reconciliation', idempotency_key: 'gtas-1' });
    expect(again.body.run_id).toBe(runId);
    const { rows } = await h.db.sql.query(`SELECT count(*)::int AS n FROM dataflow_runs WHERE tenant_id = 'acme'`);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('answers the typed client with the same run for the same key', async () => {
    const client = new DataflowClient(url);
    const view = await client.run(
      { token: await acme },
      { pack_id: 'builtin.gtas-reconciliation', idempotency_key: 'gtas-1' },
    );
    expect(view).toMatchObject({ run_id: runId, status: 'failed' });
    expect((await client.get({ token: await acme }, runId)).result?.reconciliations[0]?.breaks.count).toBe(1);
  });

  it('lists breaks with their failed rules, and keeps hashed evidence', async () => {
    const breaks = await call(url, 'GET', `/api/dataflow/runs/${runId}/breaks`, acme);
    expect(breaks.status).toBe(200);
    const byCat = Object.fromEntries(breaks.body.breaks.map((b: any) => [b.category, b]));
    expect(byCat.break.key).toBe('2020');
    expect(byCat.break.detail.failures[0]).toMatchObject({
      field: 'amount',
      rule: 'amount',
      reason: 'amounts differ by 5',
    });
    expect(byCat.unmatched_left.key).toBe('3030');
    expect(byCat.unmatched_right.key).toBe('4040');
    const ev = await call(url, 'GET', `/api/dataflow/runs/${runId}/evidence`, acme);
    expect(ev.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ev.body.content.status).toBe('failed');
    expect(ev.body.sha256).toBe(
      (await call(url, 'GET', `/api/dataflow/runs/${runId}`, acme)).body.result.evidence_sha256,
    );
  });

  it('appends gtas_reconciliation with the spec fields through the outbox and publishes the result', async () => {
    const { rows } = await h.db.sql.query<{ event_data: any }>(
      `SELECT event_data FROM outbox_events WHERE service = 'dataflow' AND event_type = 'gtas_reconciliation' AND tenant_id = 'acme'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.event_data).toMatchObject({
      trial_balance_id: 'TB-2026-09',
      voucher_count: 4,
      total_amount: 240,
      discrepancies: expect.arrayContaining([expect.objectContaining({ account: '2020', category: 'break' })]),
    });
    await waitFor(() => notices.some((n) => n.run_id === runId));
    expect(notices.find((n) => n.run_id === runId)).toMatchObject({ result: 'failed', matched: 1, breaks: 1 });
  });

  it('shows the run and its breaks through GraphQL', async () => {
    const res = await call(url, 'POST', '/graphql', acme, {
      query: `query($id: ID!) { dataflowRun(id: $id) { status breaks { category key } evidence { sha256 } } }`,
      variables: { id: runId },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.dataflowRun.status).toBe('FAILED');
    expect(res.body.data.dataflowRun.breaks).toHaveLength(3);
  });

  it('another tenant sees none of it', async () => {
    expect((await call(url, 'GET', `/api/dataflow/runs/${runId}`, other)).status).toBe(404);
    expect((await call(url, 'GET', `/api/dataflow/runs/${runId}/breaks`, other)).status).toBe(404);
    expect((await call(url, 'GET', `/api/dataflow/runs`, other)).body.runs).toEqual([]);
    const gql = await call(url, 'POST', '/graphql', other, {
      query: `query($id: ID!) { dataflowRun(id: $id) { id } }`,
      variables: { id: runId },
    });
    expect(gql.body.data.dataflowRun).toBeNull();
  });

  it('runs once per ingestion batch when ingestion.completed arrives', async () => {
    await stageGtas(other);
    const event = {
      tenant_id: 'other',
      pipeline_id: 'p1',
      pipeline_version: 1,
      run_id: 'ir1',
      batch_id: 'batch-77',
      dataset: 'vouchers',
      source_kind: 'file_drop' as const,
      records: 4,
      rejected: 0,
      content_sha256: 'a'.repeat(64),
      schema_version: null,
      lineage: { inputs: [], outputs: [{ namespace: 'ingestion', name: 'vouchers' }] },
      at: new Date().toISOString(),
    };
    // Two deliveries of the same batch (a producer's retry under a new event id): one run.
    await appendToBackbone('other', event);
    await appendToBackbone('other', event);
    await waitFor(async () => (await call(url, 'GET', '/api/dataflow/runs', other)).body.runs.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    const runs = (await call(url, 'GET', '/api/dataflow/runs', other)).body.runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger_kind: 'ingestion', trigger_key: 'ingestion:batch-77', status: 'failed' });
    const ev = await call(url, 'GET', `/api/dataflow/runs/${runs[0].run_id}/evidence`, other);
    expect(ev.body.content.input_manifests[0].batch_id).toBe('batch-77');
  });
});

describe('a certified pack from the packs registry', () => {
  const author = token('acme', 'alice');
  const reviewer = token('acme', 'bob', ['reviewer']);
  const pack = (id: string, extra: Record<string, unknown>) => ({
    kind: 'dataflow',
    metadata: { pack_id: id, version: '1.0.0', name: id },
    inputs: [
      { name: 'bank', source: 'dataset', dataset: 'bank' },
      { name: 'ledger', source: 'dataset', dataset: 'ledger' },
    ],
    outputs: [{ name: 'bank_norm' }],
    triggers: [{ type: 'on_demand' }],
    ...extra,
  });
  const certify = async (p: any) => {
    const sub = await call(registryUrl, 'POST', '/packs', author, { artifact: p, format: 'json' });
    expect(sub.status).toBe(201);
    expect(sub.body.kind).toBe('dataflow');
    const cert = await call(registryUrl, 'POST', `/packs/${p.metadata.pack_id}/versions/1.0.0/certify`, reviewer);
    expect(cert.status).toBe(200);
  };

  beforeAll(async () => {
    await stage(acme, 'bank', [
      { key: 'b1', data: { ref: 'R1', amt: '100.004', day: '2026-09-01', payee: 'Jon Smith', iban: 'DE001' } },
      { key: 'b2', data: { ref: 'R2', amt: '50', day: '2026-09-10', payee: 'Acme GmbH', iban: 'DE002' } },
    ]);
    await stage(acme, 'ledger', [
      { key: 'R1', data: { ref: 'R1', amount: 100, date: '2026-09-03', name: 'John Smith', iban: 'DE001' } },
      { key: 'R2', data: { ref: 'R2', amount: 50, date: '2026-09-25', name: 'Acme GmbH', iban: 'DE002' } },
    ]);
  });

  it('refuses a draft, then runs JSONata and tolerance rules once certified, masking PII', async () => {
    const p = pack('bank-rec', {
      transforms: [
        {
          name: 'norm',
          type: 'jsonata',
          input: 'bank',
          expression: '{"ref": ref, "amount": $number(amt), "date": day, "name": payee, "iban": iban}',
          output: 'bank_norm',
          key: 'ref',
        },
      ],
      reconciliations: [
        {
          name: 'bank_vs_ledger',
          left: 'bank_norm',
          right: 'ledger',
          compare: [
            { left: 'amount', rule: 'amount', tolerance: 0.01 },
            { left: 'date', rule: 'date', days: 5 },
            { left: 'name', rule: 'fuzzy', threshold: 0.8 },
          ],
          pii: ['iban', 'name'],
        },
      ],
    });
    const sub = await call(registryUrl, 'POST', '/packs', author, { artifact: p, format: 'json' });
    expect(sub.status).toBe(201);
    expect((await run(acme, { pack_id: 'bank-rec', version: '1.0.0' })).status).toBe(409);
    const cert = await call(registryUrl, 'POST', '/packs/bank-rec/versions/1.0.0/certify', reviewer);
    expect(cert.status).toBe(200);
    const res = await run(acme, { pack_id: 'bank-rec', version: '1.0.0' });
    expect(res.body.detail).toBeUndefined();
    expect(res.status).toBe(200);
    const r = res.body.result.reconciliations[0];
    expect(r.matched.count).toBe(1);
    expect(r.breaks.count).toBe(1);
    const breaks = (await call(url, 'GET', `/api/dataflow/runs/${res.body.run_id}/breaks`, acme)).body.breaks;
    expect(breaks[0].key).toBe('R2');
    expect(breaks[0].detail.failures).toEqual([expect.objectContaining({ rule: 'date' })]);
    expect(breaks[0].detail.left.iban).toBe('***');
    expect(JSON.stringify(breaks)).not.toContain('DE002');
  });

  it('runs a certified registry pack whose trigger names the ingested dataset, once per batch', async () => {
    await certify(
      pack('on-bank', {
        triggers: [{ type: 'ingestion', dataset: 'bank', filter: { source_kind: 'rest_push' } }],
        reconciliations: [{ name: 'r', left: 'bank', right: 'ledger', left_key: 'ref' }],
      }),
    );
    const event = (batch: string, source_kind: string) => ({
      tenant_id: 'acme',
      pipeline_id: 'bank-feed',
      pipeline_version: 1,
      run_id: 'ir',
      batch_id: batch,
      dataset: 'bank',
      source_kind,
      records: 2,
      rejected: 0,
      content_sha256: 'b'.repeat(64),
      schema_version: null,
      lineage: { inputs: [], outputs: [] },
      at: new Date().toISOString(),
    });
    await appendToBackbone('acme', event('skipped', 'sftp'));
    await appendToBackbone('acme', event('bank-1', 'rest_push'));
    const runsOf = async () => (await call(url, 'GET', '/api/dataflow/runs?pack_id=on-bank', acme)).body.runs as any[];
    // A triggered run is listed from its start ('running'): wait until it has ended.
    await waitFor(async () => (await runsOf()).some((r) => r.status !== 'running'));
    const runs = await runsOf();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger_key: 'ingestion:bank-1', status: 'passed' });
  });

  it('compares by checksum-and-split, reading only the ranges that differ', async () => {
    const many = (n: number, change: (i: number) => number) =>
      Array.from({ length: n }, (_, i) => ({ key: `k${String(i).padStart(5, '0')}`, data: { v: change(i) } }));
    await stage(
      acme,
      'big_l',
      many(3000, (i) => i),
    );
    await stage(
      acme,
      'big_r',
      many(3000, (i) => (i === 1234 ? -1 : i)),
    );
    await certify({
      kind: 'dataflow',
      metadata: { pack_id: 'diff-pack', version: '1.0.0', name: 'diff' },
      inputs: [
        { name: 'big_l', source: 'dataset', dataset: 'big_l' },
        { name: 'big_r', source: 'dataset', dataset: 'big_r' },
      ],
      reconciliations: [{ name: 'diff', left: 'big_l', right: 'big_r', method: 'checksum_diff' }],
      outputs: [],
      triggers: [{ type: 'on_demand' }],
    });
    const res = await run(acme, { pack_id: 'diff-pack' });
    expect(res.status).toBe(200);
    const r = res.body.result.reconciliations[0];
    expect(r).toMatchObject({ matched: { count: 2999 }, breaks: { count: 1 } });
    expect(r.breaks.samples[0].key).toBe('k01234');
    expect(r.rows_compared).toBeLessThan(2000);
  });

  it.each([
    [
      'reads another tenant',
      "SELECT record_key AS key, data FROM dataflow_records WHERE tenant_id = 'other'",
      /declared inputs/,
    ],
    [
      'writes outside its outputs',
      "SELECT * FROM (WITH d AS (DELETE FROM dataflow_runs RETURNING id) SELECT id AS key, '{}'::jsonb AS data FROM d) x",
      /failed|may not write/,
    ],
    ['runs for ever', "SELECT 'k' AS key, jsonb_build_object('s', pg_sleep(30)::text) AS data", /cancelled|longer/],
  ])('a pack whose SQL %s is refused with a clear error', async (name, sql, message) => {
    if (name === 'runs for ever' && h.db.kind !== 'postgres') return; // PGlite cannot interrupt a statement (docs/dataflow.md)
    const id = `hostile-${name.replace(/\W+/g, '-')}`;
    await certify(pack(id, { transforms: [{ name: 't', type: 'sql', inputs: ['bank'], sql, output: 'bank_norm' }] }));
    const res = await run(acme, { pack_id: id });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toMatch(message);
    expect((await call(url, 'GET', '/api/dataflow/runs?limit=1', acme)).body.runs[0]).toMatchObject({
      status: 'error',
    });
  });

  it('stops a looping JSONata expression and refuses mismatched schemas; the service keeps serving', async () => {
    await certify(
      pack('looping', {
        transforms: [
          {
            name: 'loop',
            type: 'jsonata',
            input: 'bank',
            expression: '($f := function($x){ $f($x) + 1 }; $f(1))',
            output: 'bank_norm',
          },
        ],
      }),
    );
    const loop = await run(acme, { pack_id: 'looping' });
    expect(loop.status).toBe(422);
    await certify(
      pack('mismatch', {
        reconciliations: [
          { name: 'm', left: 'bank', right: 'ledger', compare: [{ left: 'no_such_field', rule: 'exact' }] },
        ],
      }),
    );
    const mismatch = await run(acme, { pack_id: 'mismatch' });
    expect(mismatch.status).toBe(422);
    expect(JSON.stringify(mismatch.body.detail)).toMatch(/no field 'no_such_field'/);
    expect((await call(url, 'GET', '/healthz', undefined)).status).toBe(200);
  });
});

async function appendToBackbone(tenantId: string, data: unknown): Promise<void> {
  await seedPlatformTopics(h.db.sql);
  const out = await createEventsStore(h.db.sql).publish(
    tenantId,
    {
      id: randomUUID(),
      tenantId,
      topic: INGESTION_COMPLETED.topic,
      source: '/services/ingestion',
      type: INGESTION_COMPLETED.topic,
      time: new Date().toISOString(),
      subject: null,
      traceparent: null,
      data,
      size: 100,
    },
    1e12,
  );
  expect(out.kind).toBe('stored');
}

async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}
