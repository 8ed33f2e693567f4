// A source whose columns changed, with the real workflow service beside ingestion (issue 32 item
// 4): the batch is quarantined whole and a workflow human task asks a second person to approve
// the new columns. The sender cannot approve their own change; a reviewer's approval makes the
// pipeline accept the columns and the same source, sent again, completes as the same batch under a
// new run; a rejected change keeps its batch quarantined; the decisions are in the audit outbox;
// another tenant sees none of it.
import { workflowService } from '../../../services/workflow';
import { defineIngestionService } from '../../../services/ingestion';
import { AccessTokens } from '../../../platform/auth/jwt';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';
import { call, customersPipeline, CUSTOMERS_CSV, push, token } from './ingestion.support';

jest.setTimeout(180_000);

const A = 'sc-a';
const B = 'sc-b';
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let reviewerToken: string;
const reviewer = () =>
  tokens.issue({ username: 'rita', tenantId: A, roles: ['admin', 'user'], scopes: ['read', 'write'] });

const MOBILE_CSV = CUSTOMERS_CSV.replace(
  'id,first,last,email,ssn,phone,balance',
  'id,first,last,email,ssn,phone,mobile,balance',
)
  .split('\n')
  .map((line, i) => (i === 0 || line === '' ? line : line.replace(/,([^,]*)$/, ',+1 555 0100,$1')))
  .join('\n');

let h: Harness;
let url: string;
let workflow: string;
let sender: string;
let other: string;

async function decide(taskId: string, tok: string, username: string, decision: string) {
  const res = await fetch(`${workflow}/approve/${taskId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tok}`, 'x-user-id': username, 'content-type': 'application/json' },
    body: JSON.stringify({ decision, notes: 'source schema change' }),
  });
  return res.status;
}

/** The decisions the audit outbox holds for a batch's schema change. */
async function auditedDecisions(batchId: string): Promise<string[]> {
  const res = await h.db.sql.query<{ event_data: any }>(
    `SELECT event_data FROM outbox_events WHERE service = 'ingestion' AND event_type = 'ingestion_schema_change' AND tenant_id = $1`,
    [A],
  );
  return res.rows
    .map((r) => (typeof r.event_data === 'string' ? JSON.parse(r.event_data) : r.event_data))
    .filter((d) => d.batch_id === batchId)
    .map((d) => d.decision as string);
}

beforeAll(async () => {
  const ports = { workflow: await freePort(), ingestion: await freePort() };
  h = await startServices(
    [workflowService, defineIngestionService()],
    {
      REQUIRE_AUTH: 'true',
      WORKFLOW_URL: `http://127.0.0.1:${ports.workflow}`,
      // No schema registry runs here: the pipeline schema comes from the contract file.
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
    },
    { ports },
  );
  url = h.services.ingestion!.url;
  workflow = h.services.workflow!.url;
  sender = await token(A, 'sam');
  other = await token(B);
  reviewerToken = await reviewer();
});

afterAll(async () => {
  await h?.close();
});

async function pipelineWithOneBatch(name: string): Promise<string> {
  const created = await call(url, sender, 'POST', '/api/ingestion/pipelines', { definition: customersPipeline(name) });
  expect(created.status).toBe(201);
  const first = await push(url, sender, created.body.id, CUSTOMERS_CSV);
  expect(first.body.status).toBe('completed');
  return created.body.id as string;
}

describe('a source schema change', () => {
  it('is quarantined, approved by a second person through a workflow task, then runs when sent again', async () => {
    const pipelineId = await pipelineWithOneBatch('approved-change');
    const changed = await push(url, sender, pipelineId, MOBILE_CSV);
    expect(changed.status).toBe(202);
    expect(changed.body.status).toBe('quarantined');
    expect(changed.body.error).toContain('added [mobile], removed []');

    const sc = await call(url, sender, 'GET', `/api/ingestion/batches/${changed.body.id}/schema-change`);
    expect(sc.status).toBe(200);
    expect(sc.body).toMatchObject({
      pipeline_id: pipelineId,
      batch_id: changed.body.id,
      added: ['mobile'],
      removed: [],
      status: 'pending_approval',
      requested_by: 'sam',
      reviewer: null,
    });
    expect(sc.body.columns).toContain('mobile');
    expect(sc.body.approval_task_id).toEqual(expect.any(String));

    // Still pending: the same source again is still the quarantined batch.
    const again = await push(url, sender, pipelineId, MOBILE_CSV);
    expect(again.body).toMatchObject({ id: changed.body.id, status: 'quarantined' });

    // Four eyes: the sender cannot approve their own change.
    expect(await decide(sc.body.approval_task_id, sender, 'sam', 'approve')).toBe(403);
    expect(await decide(sc.body.approval_task_id, reviewerToken, 'rita', 'approve')).toBe(200);

    const decided = await call(url, sender, 'GET', `/api/ingestion/pipelines/${pipelineId}/schema-changes`);
    expect(decided.body.schema_changes).toHaveLength(1);
    expect(decided.body.schema_changes[0]).toMatchObject({ status: 'approved', reviewer: 'rita' });
    expect(decided.body.schema_changes[0].decided_at).toEqual(expect.any(String));

    const ran = await push(url, sender, pipelineId, MOBILE_CSV);
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ id: changed.body.id, status: 'completed', pipeline_version: 1 });
    expect(ran.body.run_id).not.toBe(changed.body.run_id);
    expect(ran.body.progress.rows_staged).toBeGreaterThan(0);
    expect(await auditedDecisions(changed.body.id)).toEqual(expect.arrayContaining(['requested', 'approved']));

    // GraphQL: the batch names its change.
    const gql = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sender}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query($id: ID!) { ingestionPipeline(id: $id) { schemaChanges { status added reviewer approvalTaskId } } }`,
        variables: { id: pipelineId },
      }),
    }).then((r) => r.json() as Promise<any>);
    expect(gql.data.ingestionPipeline.schemaChanges).toEqual([
      { status: 'APPROVED', added: ['mobile'], reviewer: 'rita', approvalTaskId: sc.body.approval_task_id },
    ]);
  });

  it('stays quarantined when the reviewer rejects it', async () => {
    const pipelineId = await pipelineWithOneBatch('rejected-change');
    const changed = await push(url, sender, pipelineId, MOBILE_CSV);
    expect(changed.body.status).toBe('quarantined');
    const sc = await call(url, sender, 'GET', `/api/ingestion/batches/${changed.body.id}/schema-change`);
    expect(await decide(sc.body.approval_task_id, reviewerToken, 'rita', 'reject')).toBe(200);
    const after = await call(url, sender, 'GET', `/api/ingestion/batches/${changed.body.id}/schema-change`);
    expect(after.body).toMatchObject({ status: 'rejected', reviewer: 'rita' });
    const again = await push(url, sender, pipelineId, MOBILE_CSV);
    expect(again.body).toMatchObject({ id: changed.body.id, status: 'quarantined' });
    expect(await auditedDecisions(changed.body.id)).toEqual(expect.arrayContaining(['requested', 'rejected']));
  });

  it('is nothing another tenant can see', async () => {
    const pipelineId = await pipelineWithOneBatch('private-change');
    const changed = await push(url, sender, pipelineId, MOBILE_CSV);
    expect((await call(url, other, 'GET', `/api/ingestion/batches/${changed.body.id}/schema-change`)).status).toBe(404);
    expect((await call(url, other, 'GET', `/api/ingestion/pipelines/${pipelineId}/schema-changes`)).status).toBe(404);
  });

  it('a batch that met none has none (404)', async () => {
    const pipelineId = await pipelineWithOneBatch('no-change');
    const batches = await call(url, sender, 'GET', `/api/ingestion/pipelines/${pipelineId}/batches`);
    const r = await call(url, sender, 'GET', `/api/ingestion/batches/${batches.body.batches[0].id}/schema-change`);
    expect(r.status).toBe(404);
  });
});
