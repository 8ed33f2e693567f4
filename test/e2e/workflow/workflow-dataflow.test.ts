// The workflow's `dataflow` step against the real DataFlow service (one database, real HTTP): the
// built-in GTAS pack runs from a step (trigger `workflow_step`, keyed by the step's idempotency
// key), its counts land at `output_field`, and a decision branches on them: a clean
// reconciliation one way, breaks the other. A pack that does not declare the workflow_step
// trigger, or is unknown, fails the step for good; a resumed step's second call finds the same run.
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineDataflowService } from '../../../services/dataflow';
import { packsRegistryService } from '../../../services/packs-registry';
import { defineWorkflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { call, PacksStandIn } from './workflow.support';

jest.setTimeout(120_000);

let registry: Harness;
let dataflow: Harness;
let workflow: Harness;
let url: string;
let dataflowUrl: string;
const packs = new PacksStandIn();
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const token = (tenantId: string) =>
  tokens.issue({ username: `user-${tenantId}`, tenantId, roles: ['user'], scopes: ['read', 'write'] });

beforeAll(async () => {
  registry = await startServices([packsRegistryService]);
  dataflow = await startServices(
    [
      defineDataflowService({
        config: { packsRegistryUrl: registry.services['packs-registry']!.url },
        consumer: { pollMs: 100, backoffMs: 100 },
      }),
    ],
    {},
    { db: registry.db, bus: registry.bus },
  );
  dataflowUrl = dataflow.services.dataflow!.url;
  workflow = await startServices(
    [defineWorkflowService({ packs, config: { dataflowUrl, retryBaseMs: 5, pollMs: 20, stepMaxAttempts: 2 } })],
    {},
    { db: dataflow.db, bus: dataflow.bus },
  );
  url = workflow.services.workflow!.url;
  packs.put({
    metadata: { pack_id: 'close-the-books', version: '1.0.0', workflow_type: 'operational', name: 'close' },
    steps: [
      { step: 'reconcile', type: 'dataflow', dataflow_pack_id: 'builtin.gtas-reconciliation', output_field: 'recon' },
      {
        step: 'route',
        type: 'decision',
        branches: [
          {
            name: 'breaks',
            when: { field: 'recon.outcome', operator: '==', value: 'failed' },
            steps: [{ step: 'open-investigation', type: 'action', action: 'record' }],
          },
        ],
        otherwise: [{ step: 'sign-off', type: 'action', action: 'record' }],
      },
    ],
  });
});
afterAll(async () => {
  await workflow?.close();
  await dataflow?.close();
  await registry?.close();
});

async function stage(tok: string, dataset: string, records: { key: string; data: Record<string, unknown> }[]) {
  const r = await call(`${dataflowUrl}/api/dataflow/datasets/${dataset}/records`, { token: tok, body: { records } });
  expect(r.status).toBe(200);
}

async function stageBooks(tok: string, secondAccount: number) {
  await stage(tok, 'trial_balance', [
    { key: '1010', data: { account: '1010', amount: 150, trial_balance_id: 'TB-1' } },
    { key: '2020', data: { account: '2020', amount: secondAccount, trial_balance_id: 'TB-1' } },
  ]);
  await stage(tok, 'vouchers', [
    { key: 'v1', data: { account: '1010', amount: 100 } },
    { key: 'v2', data: { account: '1010', amount: 50 } },
    { key: 'v3', data: { account: '2020', amount: 75 } },
  ]);
}

const execute = (tok: string, packId = 'close-the-books') =>
  call(`${url}/execute`, {
    token: tok,
    body: { workflow_pack_id: packId, workflow_type: 'operational', payload: { period: '2026-09' } },
  });

function stepsOf(status: { body: { steps: { step: string; status: string; output: any }[] } }) {
  return Object.fromEntries(status.body.steps.map((s) => [s.step, s]));
}

it('a clean reconciliation takes the sign-off branch; its counts are the step output', async () => {
  const tok = await token('clean-co');
  await stageBooks(tok, 75);
  const r = await execute(tok);
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('completed');
  const s = await call(`${url}/status/${r.body.workflow_id}`, { token: tok });
  const steps = stepsOf(s);
  expect(steps.reconcile!.output).toMatchObject({
    pack_id: 'builtin.gtas-reconciliation',
    outcome: 'passed',
    matched: 2,
    breaks: 0,
    discrepancies: 0,
    run_id: expect.stringMatching(/^dfr_/),
    evidence_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  expect(steps['sign-off']).toMatchObject({ status: 'completed' });
  expect(steps['open-investigation']).toBeUndefined();
  // The run is DataFlow's, triggered by the step and keyed by it.
  const run = await call(`${dataflowUrl}/api/dataflow/runs/${steps.reconcile!.output.run_id}`, { token: tok });
  expect(run.body).toMatchObject({
    trigger_kind: 'workflow_step',
    trigger_key: `workflow:${r.body.workflow_id}:reconcile`,
    status: 'passed',
  });
});

it('breaks take the investigation branch', async () => {
  const tok = await token('breaky-co');
  await stageBooks(tok, 80);
  const r = await execute(tok);
  expect(r.body.status).toBe('completed');
  const steps = stepsOf(await call(`${url}/status/${r.body.workflow_id}`, { token: tok }));
  expect(steps.reconcile!.output).toMatchObject({ outcome: 'failed', matched: 1, breaks: 1, discrepancies: 1 });
  expect(steps['open-investigation']).toMatchObject({ status: 'completed' });
  expect(steps['sign-off']).toBeUndefined();
  // Each tenant sees only its own run.
  const others = await call(`${dataflowUrl}/api/dataflow/runs`, { token: await token('clean-co') });
  expect(others.body.runs.map((x: any) => x.run_id)).not.toContain(steps.reconcile!.output.run_id);
});

it('the same step key is the same run (a resumed step does not run the pack twice)', async () => {
  const tok = await token('clean-co');
  const again = await call(`${dataflowUrl}/api/dataflow/runs`, {
    token: tok,
    body: { pack_id: 'builtin.gtas-reconciliation', idempotency_key: 'wf-x:reconcile', trigger: 'workflow_step' },
  });
  const twice = await call(`${dataflowUrl}/api/dataflow/runs`, {
    token: tok,
    body: { pack_id: 'builtin.gtas-reconciliation', idempotency_key: 'wf-x:reconcile', trigger: 'workflow_step' },
  });
  expect(twice.body.run_id).toBe(again.body.run_id);
  // A workflow_step run names its key.
  const keyless = await call(`${dataflowUrl}/api/dataflow/runs`, {
    token: tok,
    body: { pack_id: 'builtin.gtas-reconciliation', trigger: 'workflow_step' },
  });
  expect(keyless.status).toBe(422);
});

it('an unknown dataflow pack fails the step for good, and a malformed dataflow step is refused at /execute', async () => {
  packs.put({
    metadata: { pack_id: 'no-such-flow', version: '1.0.0', workflow_type: 'operational', name: 'x' },
    steps: [{ step: 'reconcile', type: 'dataflow', dataflow_pack_id: 'acme.missing' }],
  });
  const tok = await token('clean-co');
  const r = await execute(tok, 'no-such-flow');
  expect(r.body.status).toBe('failed');
  const steps = stepsOf(await call(`${url}/status/${r.body.workflow_id}`, { token: tok }));
  expect(steps.reconcile).toMatchObject({ status: 'failed', attempts: 1 });
  packs.put({
    metadata: { pack_id: 'bad-flow', version: '1.0.0', workflow_type: 'operational', name: 'x' },
    steps: [{ step: 'reconcile', type: 'dataflow', prompt: 'no pack id' }],
  });
  expect((await execute(tok, 'bad-flow')).status).toBe(422);
});
