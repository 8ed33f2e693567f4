// A report's sign-off through the real workflow service's approval step (ledger, workflow and
// compliance started, one database and backbone): submitting starts the built-in compliance
// workflow with the generator's token; the generator cannot decide it in the workflow (403);
// a reviewer decides in the workflow's own /approve, and compliance learns the decision from
// `approval.decided` on the backbone, signs the report off and appends ONE `compliance_report`
// with the spec's fields, also when the decision is delivered again; a rejection in the workflow
// leaves the report unsigned and the ledger without it; another tenant sees none of it.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { APPROVAL_DECIDED } from '../../../platform/contracts/workflow.events';
import { COMPLIANCE_SIGN_OFF_PACK_ID } from '../../../platform/contracts/compliance.sign-off';
import { createEventsStore } from '../../../platform/events/backbone/backbone.store';
import { complianceService } from '../../../services/compliance';
import { SIGN_OFF_GROUP } from '../../../subgraphs/compliance/report-signoff.consumer';
import { ledgerService } from '../../../services/ledger';
import { workflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../../..');
const fixture = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'platform/contracts/oscal/fixtures', name), 'utf8')) as unknown;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const A = 'wfs-a';
const B = 'wfs-b';

let h: Harness;
let url: string;
let ledgerUrl: string;
let workflowUrl: string;
const t: Record<string, string> = {};

async function call(token: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(p.startsWith('http') ? p : url + p, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const approve = (token: string, taskId: string, user: string, decision: string, notes?: string) =>
  call(token, 'POST', `${workflowUrl}/approve/${taskId}`, { decision, notes }, { 'x-user-id': user });

async function reportEntries(reportId: string) {
  const r = await call(t.alice!, 'GET', `${ledgerUrl}/events?event_type=compliance_report&limit=100`);
  expect(r.status).toBe(200);
  return (r.body.events as any[]).filter((e) => e.event_data.report_id === reportId);
}

async function reportOf(id: string, token = t.alice!) {
  const r = await call(token, 'GET', `/api/compliance/reports/${id}`);
  expect(r.status).toBe(200);
  return r.body;
}

async function generated(period: string) {
  const r = await call(t.alice!, 'POST', '/api/compliance/reports', { framework: 'nist-800-53', period });
  expect(r.status).toBe(201);
  return r.body;
}

async function submitted(period: string) {
  const report = await generated(period);
  const r = await call(t.alice!, 'POST', `/api/compliance/reports/${report.id}/submit`, {});
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'pending_review', submitted_by: 'alice' });
  expect(r.body.workflow_id).toEqual(expect.any(String));
  expect(r.body.approval_task_id).toEqual(expect.any(String));
  return r.body;
}

beforeAll(async () => {
  const ports = { ledger: await freePort(), workflow: await freePort() };
  h = await startServices(
    [ledgerService, workflowService, complianceService],
    {
      REQUIRE_AUTH: 'true',
      LEDGER_URL: `http://127.0.0.1:${ports.ledger}`,
      WORKFLOW_URL: `http://127.0.0.1:${ports.workflow}`,
      LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE: '1000',
    },
    { ports },
  );
  url = h.services.compliance!.url;
  ledgerUrl = h.services.ledger!.url;
  workflowUrl = h.services.workflow!.url;
  const user = (username: string, tenantId: string, roles: string[]) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.carl = await user('carl', A, ['user']);
  t.bob = await user('bob', B, ['admin']);
  const r = await call(t.alice, 'POST', '/api/compliance/catalogs', {
    framework: 'nist-800-53',
    document: fixture('nist-800-53-rev5-subset.catalog.json'),
  });
  expect(r.status).toBe(201);
  const e = await call(t.alice, 'POST', '/api/compliance/evidence', {
    controls: [{ framework: 'nist-800-53', control_id: 'ac-2' }],
    content: { review: 'quarterly access review' },
    collected_at: '2026-08-10T09:00:00Z',
  });
  expect(e.status).toBe(201);
});

afterAll(async () => {
  await h?.close();
});

describe('sign-off through the workflow approval step', () => {
  let report: any;

  it('submitting starts the compliance workflow with the generator as its requester', async () => {
    report = await submitted('2026-Q3');
    const s = await call(t.alice!, 'GET', `${workflowUrl}/status/${report.workflow_id}`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: 'pending_approval', workflow_type: 'compliance', requested_by: 'alice' });
    expect(s.body.approval_tasks).toEqual([
      expect.objectContaining({ approval_task_id: report.approval_task_id, status: 'pending', requested_by: 'alice' }),
    ]);
    // Submitting again changes nothing and starts no second workflow.
    const again = await call(t.alice!, 'POST', `/api/compliance/reports/${report.id}/submit`, {});
    expect(again.body.workflow_id).toBe(report.workflow_id);
  });

  it('refuses the generator in the workflow (403): the report stays pending, nothing in the ledger', async () => {
    const own = await approve(t.alice!, report.approval_task_id, 'alice', 'approve');
    expect(own.status).toBe(403);
    const viaCompliance = await call(t.alice!, 'POST', `/api/compliance/reports/${report.id}/sign-off`, {
      decision: 'approve',
    });
    expect(viaCompliance.status).toBe(403);
    expect(await reportOf(report.id)).toMatchObject({ status: 'pending_review', reviewed_by: null });
    expect(await reportEntries(report.id)).toEqual([]);
  });

  it('runs the reserved sign-off pack, whose approval step refuses a tenant user without the reviewer role', async () => {
    const s = await call(t.alice!, 'GET', `${workflowUrl}/status/${report.workflow_id}`);
    expect(s.body).toMatchObject({ pack_id: COMPLIANCE_SIGN_OFF_PACK_ID, pack_source: 'builtin' });
    expect(s.body.approval_tasks[0]).toMatchObject({ reviewer_role: 'reviewer', status: 'pending' });
    // carl may write in tenant A, but is no reviewer: the workflow's own decide says no.
    const d = await approve(t.carl!, report.approval_task_id, 'carl', 'approve');
    expect(d.status).toBe(403);
    expect(d.body.detail).toMatch(/reviewer/);
    expect(await reportOf(report.id)).toMatchObject({ status: 'pending_review', reviewed_by: null });
    expect(await reportEntries(report.id)).toEqual([]);
  });

  it("another tenant cannot see or decide the report's approval task", async () => {
    expect((await call(t.bob!, 'GET', `${workflowUrl}/status/${report.workflow_id}`)).status).toBe(404);
    expect((await approve(t.bob!, report.approval_task_id, 'bob', 'approve')).status).toBe(404);
    expect((await call(t.bob!, 'GET', `/api/compliance/reports/${report.id}`)).status).toBe(404);
  });

  it('a reviewer approves in the workflow; compliance signs off from the backbone and appends compliance_report once', async () => {
    const d = await approve(t.rita!, report.approval_task_id, 'rita', 'approve', 'evidence checked');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ decision: 'approve', reviewer: 'rita', workflow_status: 'completed' });
    await until(async () => (await reportOf(report.id)).status === 'signed_off', 'the sign-off from the backbone');
    const signed = await reportOf(report.id);
    expect(signed).toMatchObject({ status: 'signed_off', reviewed_by: 'rita' });
    const entries = await reportEntries(report.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      id: signed.ledger_entry_id,
      event_data: {
        report_id: report.id,
        report_type: 'periodic',
        period: '2026-Q3',
        result: report.result,
        signed_off_by: 'rita',
        generated_by: 'alice',
      },
    });
  });

  it('a decision delivered again appends nothing more; a forged decision in the stream decides nothing', async () => {
    const store = createEventsStore(h.db.sql);
    const decided = APPROVAL_DECIDED.topic;
    const publish = async (workflowId: string, decision: string) => {
      const out = await store.publish(
        A,
        {
          id: randomUUID(),
          tenantId: A,
          topic: decided,
          source: '/services/workflow',
          type: decided,
          time: new Date().toISOString(),
          subject: `workflow/${workflowId}`,
          traceparent: null,
          data: {
            tenant_id: A,
            workflow_id: workflowId,
            version: 3,
            status: 'running',
            step: 'human-approval',
            approval_task_id: randomUUID(),
            detail: { decision, reviewer: 'rita' },
            at: new Date().toISOString(),
          },
          size: 200,
        },
        1e12,
      );
      if (out.kind === 'over-quota') throw new Error('over quota');
      return out.event.position;
    };
    // Handled: the group's cursor passed the position and its delivery is gone (acked).
    const handled = async (position: number) => {
      const { rows } = await h.db.sql.query<{ cursor: number; open: number }>(
        `SELECT (SELECT position FROM event_platform_cursors WHERE group_name = $1 AND tenant_id = $2)::float8 AS cursor,
                (SELECT count(*) FROM event_deliveries WHERE subscription = $3 AND tenant_id = $2 AND position = $4)::int AS open`,
        [SIGN_OFF_GROUP, A, `platform:${SIGN_OFF_GROUP}`, position],
      );
      return Number(rows[0]?.cursor ?? 0) >= position && Number(rows[0]!.open) === 0;
    };
    // The same decision again (a new event id: worse than a redelivery, which is deduped by id).
    const copy = await publish(report.workflow_id, 'approve');
    await until(() => handled(copy), 'the copy handled');
    expect(await reportEntries(report.id)).toHaveLength(1);
    expect((await reportOf(report.id)).status).toBe('signed_off');
    // A decision the workflow never recorded, written into the tenant's stream: nothing happens.
    const pending = await submitted('2026-Q1');
    const forged = await publish(pending.workflow_id, 'approve');
    await until(() => handled(forged), 'the forged decision handled');
    expect(await reportOf(pending.id)).toMatchObject({ status: 'pending_review', reviewed_by: null });
    expect(await reportEntries(pending.id)).toEqual([]);
  });

  it('a rejection in the workflow leaves the report unsigned and out of the ledger', async () => {
    const r = await submitted('2026-Q2');
    const d = await approve(t.rita!, r.approval_task_id, 'rita', 'reject', 'evidence missing');
    expect(d.status).toBe(200);
    expect(d.body.workflow_status).toBe('rejected');
    await until(async () => (await reportOf(r.id)).status === 'rejected', 'the rejection from the backbone');
    expect(await reportOf(r.id)).toMatchObject({ status: 'rejected', reviewed_by: 'rita', ledger_entry_id: null });
    expect(await reportEntries(r.id)).toEqual([]);
    // Deciding again is the workflow's 409, at either door.
    expect((await approve(t.rita!, r.approval_task_id, 'rita', 'approve')).status).toBe(409);
    expect(
      (await call(t.rita!, 'POST', `/api/compliance/reports/${r.id}/sign-off`, { decision: 'approve' })).status,
    ).toBe(409);
  });

  it('the sign-off door forwards the decision to the workflow with the reviewer token', async () => {
    const r = await submitted('2026-Q4');
    const d = await call(t.rita!, 'POST', `/api/compliance/reports/${r.id}/sign-off`, {
      decision: 'approve',
      notes: 'fine',
    });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ status: 'signed_off', reviewed_by: 'rita', review_notes: 'fine' });
    const s = await call(t.rita!, 'GET', `${workflowUrl}/status/${r.workflow_id}`);
    expect(s.body.approval_tasks[0]).toMatchObject({ status: 'approved', reviewer: 'rita', notes: 'fine' });
    expect(await reportEntries(r.id)).toHaveLength(1);
  });
});

it('a report whose workflow cannot be started stays generated (503)', async () => {
  const r = await generated('2025-Q4');
  await h.services.workflow!.built.app.close();
  const sub = await call(t.alice!, 'POST', `/api/compliance/reports/${r.id}/submit`, {});
  expect(sub.status).toBe(503);
  expect(await reportOf(r.id)).toMatchObject({ status: 'generated', workflow_id: null });
});
