// Issue 33's "Done when", walked on the whole platform: a CSV of vouchers pushed to an ingestion
// pipeline completes a batch; its ingestion.completed starts the built-in (platform-certified)
// GTAS pack once for the batch, DataFlow landing the batch's staged records from the ingestion
// service; the reconciliation's breaks are visible by REST through the gateway and by GraphQL
// through the router, the evidence hash is the one in the ledger's dataflow_run_completed event,
// and gtas_reconciliation is in the ledger. The run's progress subscription through the router
// replays the finished state and ends; another tenant's subscription and reads find nothing.
// (The console shows the same run: test/browser/console.test.ts.)
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { relayTokenProvider } from '../../../launcher/outbox-task';
import { createLedgerClient } from '../../../platform/clients/ledger.client';
import { createLogger } from '../../../platform/logging/logger';
import { startOutboxRelay, type OutboxRelay } from '../../../platform/outbox/outbox-relay';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, push } from '../ingestion/ingestion.support';
import { gql, startPlatform, tenantToken, type Platform } from '../router/platform.support';

jest.setTimeout(300_000);

let p: Platform;
let acme: string;
let other: string;
const clients: Client[] = [];
let relay: OutboxRelay;

beforeAll(async () => {
  p = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10' });
  // The launcher's outbox relay (not part of the test harness) delivers DataFlow's audit events to the ledger.
  relay = startOutboxRelay({
    db: p.db,
    ledger: createLedgerClient({ baseUrl: p.ledger, timeoutMs: 10_000, token: relayTokenProvider(TEST_JWT_SECRET) }),
    logger: createLogger('ERROR', 'outbox-relay'),
    services: ['dataflow'],
    pollMs: 100,
  });
  acme = await tenantToken('df-acme');
  other = await tenantToken('df-other');
});
afterAll(async () => {
  for (const c of clients) await c.dispose();
  await relay?.stop();
  await p?.close();
});

const VOUCHERS = ['account,amount', '1010,100', '1010,50', '2020,75', '4040,5', ''].join('\n');

let runId: string;
let sha: string;

it('an ingestion batch completing runs the certified GTAS pack once; its breaks are visible by REST through the gateway', async () => {
  const staged = await call(p.gateway, acme, 'POST', '/api/v1/dataflow/datasets/trial_balance/records', {
    records: [
      { key: '1010', data: { account: '1010', amount: 150, trial_balance_id: 'TB-DONE' } },
      { key: '2020', data: { account: '2020', amount: 80, trial_balance_id: 'TB-DONE' } },
    ],
  });
  expect(staged.status).toBe(200);
  const pipeline = await call(p.urls.ingestion!, acme, 'POST', '/api/ingestion/pipelines', {
    definition: {
      name: 'vouchers',
      source: { kind: 'rest_push' },
      format: { type: 'csv' },
      mapping: { account: 'account', amount: '$number(amount)' },
      target: {
        dataset: 'vouchers',
        schema: { type: 'object', required: ['account', 'amount'], properties: { amount: { type: 'number' } } },
      },
    },
  });
  expect(pipeline.status).toBe(201);
  const pushed = await push(p.urls.ingestion!, acme, pipeline.body.id, VOUCHERS);
  expect(pushed.status).toBe(200);
  const batchId = pushed.body.id as string;
  let runs: any[] = [];
  await until(async () => {
    runs = (await call(p.gateway, acme, 'GET', '/api/v1/dataflow/runs')).body.runs ?? [];
    return runs.some((r) => r.trigger_key === `ingestion:${batchId}` && r.status !== 'running');
  }, 'the ingestion-triggered run');
  const run = runs.find((r) => r.trigger_key === `ingestion:${batchId}`);
  expect(runs.filter((r) => r.trigger_key === `ingestion:${batchId}`)).toHaveLength(1);
  expect(run).toMatchObject({ pack_id: 'builtin.gtas-reconciliation', trigger_kind: 'ingestion', status: 'failed' });
  expect(run.result.reconciliations[0]).toMatchObject({
    matched: { count: 1 },
    breaks: { count: 1 },
    unmatched_right: { count: 1 },
  });
  runId = run.run_id;
  sha = run.result.evidence_sha256;
  const breaks = await call(p.gateway, acme, 'GET', `/api/v1/dataflow/runs/${runId}/breaks`);
  expect(breaks.body.breaks.map((b: any) => [b.category, b.key]).sort()).toEqual([
    ['break', '2020'],
    ['unmatched_right', '4040'],
  ]);
  const evidence = await call(p.gateway, acme, 'GET', `/api/v1/dataflow/runs/${runId}/evidence`);
  expect(evidence.body).toMatchObject({ sha256: sha });
  expect(evidence.body.content.input_manifests[0]).toMatchObject({ batch_id: batchId, dataset: 'vouchers' });
  // Another tenant sees none of it.
  expect((await call(p.gateway, other, 'GET', `/api/v1/dataflow/runs/${runId}`)).status).toBe(404);
});

it('the same breaks by GraphQL through the router; the ledger holds the run and gtas_reconciliation', async () => {
  const q = await gql(
    p.gateway,
    `query ($id: ID!) { dataflowRun(id: $id) { status breaks { category key } evidence { sha256 } } }`,
    {
      token: acme,
      variables: { id: runId },
    },
  );
  expect(q.body.data.dataflowRun).toMatchObject({ status: 'FAILED', evidence: { sha256: sha } });
  expect(q.body.data.dataflowRun.breaks).toHaveLength(2);
  const hidden = await gql(p.gateway, `query ($id: ID!) { dataflowRun(id: $id) { id } }`, {
    token: other,
    variables: { id: runId },
  });
  expect(hidden.body.data.dataflowRun).toBeNull();
  const ledger = async (type: string): Promise<any[]> => {
    const r = await gql(
      p.gateway,
      `query ($t: String) { ledgerEvents(filter: { eventType: $t }) { nodes { eventData } } }`,
      { token: acme, variables: { t: type } },
    );
    if (r.body.errors) throw new Error(JSON.stringify(r.body.errors));
    return r.body.data.ledgerEvents.nodes;
  };
  await until(async () => (await ledger('gtas_reconciliation')).length > 0, 'gtas_reconciliation in the ledger');
  expect((await ledger('gtas_reconciliation'))[0].eventData).toMatchObject({
    trial_balance_id: 'TB-DONE',
    voucher_count: 4,
    total_amount: 230,
    run_id: runId,
  });
  await until(
    async () => (await ledger('dataflow_run_completed')).some((e: any) => e.eventData.run_id === runId),
    'dataflow_run_completed in the ledger',
  );
  const completed = (await ledger('dataflow_run_completed')).find((e: any) => e.eventData.run_id === runId);
  expect(completed.eventData).toMatchObject({ evidence_sha256: sha, status: 'failed' });
});

it("dataflowRunProgress through the router replays the run's final state and ends; another tenant's is NOT_FOUND", async () => {
  const subscribe = (tok: string) => {
    const c = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${tok}` },
      retryAttempts: 0,
    });
    clients.push(c);
    const items: any[] = [];
    const errors: any[] = [];
    let done = false;
    c.subscribe(
      {
        query: `subscription ($id: ID!) { dataflowRunProgress(runId: $id) { runId status position transformsDone reconciliationsDone run { packId } } }`,
        variables: { id: runId },
      },
      {
        next: (v) => (v.errors ? errors.push(...v.errors) : items.push(v.data)),
        error: (e) => errors.push(e),
        complete: () => (done = true),
      },
    );
    return { items, errors, done: () => done };
  };
  // On a machine loaded past ~30, the router's own graphql-ws handshake with the subgraph can time
  // out (4408, SUBGRAPH_UNAVAILABLE) before anything is asked: that is the transport, so ask once more.
  const settled = async (tok: string) => {
    for (let attempt = 0; ; attempt++) {
      const s = subscribe(tok);
      await until(() => s.done() || s.errors.length > 0, 'the subscription to end');
      if (attempt > 0 || !JSON.stringify(s.errors).includes('SUBGRAPH_UNAVAILABLE')) return s;
    }
  };
  const mine = await settled(acme);
  expect(mine.errors).toEqual([]);
  expect(mine.items).toEqual([
    {
      dataflowRunProgress: {
        runId,
        status: 'FAILED',
        position: 3,
        transformsDone: ['voucher_totals'],
        reconciliationsDone: ['gtas'],
        run: { packId: 'builtin.gtas-reconciliation' },
      },
    },
  ]);
  const theirs = await settled(other);
  expect(theirs.items).toEqual([]);
  expect(JSON.stringify(theirs.errors)).toContain('NOT_FOUND');
});
