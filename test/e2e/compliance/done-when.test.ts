// Issue 28's "Done when", walked end to end over real services (ledger, validation, workflow,
// compliance; one database and backbone): a validation run and a workflow run reach compliance
// through the typed ComplianceClient (PLATFORM_COMPLIANCE_URL; the service's own backbone intake
// is off here, so only the client can have brought them) and become evidence mapped to controls
// by a certified mapping pack; the backbone then delivers the same events again (the durable
// intake, started afterwards) and nothing is counted twice. A report is generated, submitted by
// its generator, refused to her and to a non-reviewer in the workflow, approved there by a
// reviewer (a second person), exported as OSCAL assessment results that NIST's schema accepts,
// and appended to the ledger as `compliance_report` with the spec's fields. A retention purge of
// workflow payloads and an erasure of a data subject follow, and afterwards the tenant's chain
// verifies and an inclusion proof of the report's entry verifies offline.
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { AccessTokens } from '../../../platform/auth/jwt';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { createLedgerClient } from '../../../platform/clients/ledger.client';
import { WorkflowClient } from '../../../platform/clients/workflow.client';
import { createLogger } from '../../../platform/logging/logger';
import { startOutboxRelay, type OutboxRelay } from '../../../platform/outbox/outbox-relay';
import { runPurgePass } from '../../../platform/retention/purge-pass';
import { loadLegalMinimums } from '../../../platform/retention/retention.types';
import { ERASED, SubjectVault } from '../../../platform/vault/subject-vault';
import { subjectVaultKey } from '../../../platform/vault/vault.config';
import { relayTokenProvider } from '../../../launcher/outbox-task';
import { defineComplianceService } from '../../../services/compliance';
import { ledgerService } from '../../../services/ledger';
import { defineValidationService } from '../../../services/validation';
import { workflowService } from '../../../services/workflow';
import { consumeIntake } from '../../../subgraphs/compliance/compliance.intake';
import { createComplianceModule } from '../../../subgraphs/compliance/compliance.module';
import type { IngestResult } from '../../../subgraphs/compliance/compliance.types';
import { createEvidenceLedger } from '../../../subgraphs/compliance/evidence-ledger';
import { createReportLedger } from '../../../subgraphs/compliance/report-ledger';
import { createConversationStore } from '../../../subgraphs/rag/conversation.store';
import { purgeWorkflowPayloads } from '../../../subgraphs/workflow/execution.store';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';
import { GOOD_RECORD, KYC_PACK } from '../validation/support/packs';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../../..');
const OSCAL = path.join(ROOT, 'platform/contracts/oscal');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(OSCAL, 'fixtures', name), 'utf8')) as unknown;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const A = 'done-a';
const quiet = createLogger('CRITICAL', 'done-when');

let h: Harness;
let relay: OutboxRelay;
const urls: Record<string, string> = {};
const t: Record<string, string> = {};
let stopBusIntake: (() => Promise<void>) | undefined;

async function call(token: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}
const compliance = (token: string, method: string, p: string, body?: unknown) =>
  call(token, method, `${urls.compliance}${p}`, body);

/** Every audit event of the outbox delivered to the ledger (the relay run by hand). */
async function deliverAll() {
  for (let i = 0; i < 30; i++) {
    await relay.runOnce();
    const left = await h.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE delivered_at IS NULL AND dead_lettered_at IS NULL`,
    );
    if (Number(left.rows[0]!.n) === 0) return;
  }
  throw new Error('outbox not drained');
}

/** Evidence items of the tenant that came from one topic, with their controls and (workflow) event. */
async function evidenceFrom(topic: string) {
  const { rows } = await h.db.sql.query<{ id: string; event_id: string; event: string | null; controls: string[] }>(
    `SELECT i.id::text AS id, i.event_id, min(r.content->'data'->>'event') AS event,
            array_agg(DISTINCT c.control_id ORDER BY c.control_id) AS controls
       FROM compliance_evidence_items i
       JOIN compliance_evidence_controls c ON c.tenant_id = i.tenant_id AND c.item_id = i.id
       JOIN compliance_evidence_revisions r ON r.tenant_id = i.tenant_id AND r.item_id = i.id AND r.revision = 1
      WHERE i.tenant_id = $1 AND i.source = $2 GROUP BY i.id, i.event_id ORDER BY i.event_id`,
    [A, `event:${topic}`],
  );
  return rows;
}

const quarter = (d: Date) => `${d.getUTCFullYear()}-Q${Math.floor(d.getUTCMonth() / 3) + 1}`;

beforeAll(async () => {
  const ports = { ledger: await freePort(), workflow: await freePort(), compliance: await freePort() };
  urls.ledger = `http://127.0.0.1:${ports.ledger}`;
  urls.workflow = `http://127.0.0.1:${ports.workflow}`;
  urls.compliance = `http://127.0.0.1:${ports.compliance}`;
  h = await startServices(
    [ledgerService, defineValidationService(), workflowService, defineComplianceService({ intake: false })],
    {
      REQUIRE_AUTH: 'true',
      LEDGER_URL: urls.ledger,
      WORKFLOW_URL: urls.workflow,
      // Spec 03's variable: validation and workflow hand their compliance events to this URL.
      PLATFORM_COMPLIANCE_URL: urls.compliance,
      LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE: '1000',
      RETENTION_SWEEP_MINUTES: '0',
    },
    { ports },
  );
  urls.validation = h.services.validation!.url;
  relay = startOutboxRelay({
    db: h.db,
    ledger: createLedgerClient({ baseUrl: urls.ledger, timeoutMs: 5000, token: relayTokenProvider(TEST_JWT_SECRET) }),
    logger: quiet,
    pollMs: 60_000,
  });
  const user = (username: string, roles: string[]) =>
    tokens.issue({ username, tenantId: A, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', ['user']);
  t.carl = await user('carl', ['user']);
  t.rita = await user('rita', ['reviewer']);
  t.ann = await user('ann', ['admin']);

  // The tenant's framework and a certified mapping pack (validation runs -> si-10, au-2, au-12;
  // workflow events -> au-6, cm-3).
  const imported = await compliance(t.alice, 'POST', '/api/compliance/catalogs', {
    framework: 'nist-800-53',
    document: fixture('nist-800-53-rev5-subset.catalog.json'),
  });
  expect(imported.status).toBe(201);
  const pack = await compliance(t.alice, 'POST', '/api/compliance/mapping-packs', {
    pack: fixture('platform-events.mapping-pack.json'),
  });
  expect(pack.status).toBe(201);
  const certified = await compliance(
    t.rita,
    'POST',
    '/api/compliance/mapping-packs/platform-events-800-53/versions/1.0.0/certify',
    {},
  );
  expect(certified.status).toBe(200);
});

afterAll(async () => {
  await stopBusIntake?.();
  await relay?.stop();
  await h?.close();
});

describe('Done when (issue 28)', () => {
  let ruleRun: { id: string; event_id: string; controls: string[] };
  /** A rejection is two compliance events: `workflow.compensating`, then `workflow.rejected`. */
  let workflowRuns: { id: string; event_id: string; event: string | null; controls: string[] }[];
  let workflowId: string;
  let report: any;

  it('a validation run becomes evidence mapped to controls through the typed client', async () => {
    const run = await call(t.alice!, 'POST', `${urls.validation}/validate`, {
      rule_pack: KYC_PACK,
      payload: GOOD_RECORD,
    });
    expect(run.status).toBe(200);
    await until(async () => (await evidenceFrom('compliance.rule_execution')).length > 0, 'the run as evidence');
    const [first] = await evidenceFrom('compliance.rule_execution');
    ruleRun = first!;
    expect(ruleRun.controls).toEqual(['au-12', 'au-2', 'si-10']);
  });

  it('a workflow run (rejected by a second person) becomes evidence mapped to controls through the typed client', async () => {
    const started = await call(t.alice!, 'POST', `${urls.workflow}/execute`, {
      workflow_type: 'legal',
      payload: { instrument: 'deed 7', parties: ['A. Smith'] },
    });
    expect(started.status).toBe(200);
    workflowId = started.body.workflow_id;
    const rejected = await call(
      t.rita!,
      'POST',
      `${urls.workflow}/approve/${started.body.approval_task_id}`,
      { decision: 'reject', notes: 'instrument unsigned' },
      { 'x-user-id': 'rita' },
    );
    expect(rejected.status).toBe(200);
    await until(
      async () => (await evidenceFrom('compliance.workflow_event')).some((e) => e.event === 'workflow.rejected'),
      'the rejection as evidence',
    );
    workflowRuns = await evidenceFrom('compliance.workflow_event');
    expect(workflowRuns.map((e) => e.event).sort()).toEqual(['workflow.compensating', 'workflow.rejected']);
    for (const e of workflowRuns) expect(e.controls).toEqual(['au-6', 'cm-3']);
    const item = await compliance(t.alice!, 'GET', `/api/compliance/evidence/${workflowRuns[0]!.id}`);
    expect(item.body.revisions[0].content.data).toMatchObject({ workflow_id: workflowId, tenant_id: A });
  });

  it('the backbone delivers the same events again and nothing is counted twice', async () => {
    // The service's own durable intake, as it runs when the backbone is its path.
    const m = createComplianceModule({
      db: h.db,
      config: {
        requireAuth: true,
        evidenceTtlDays: 90,
        expiringDays: 14,
        ledgerUrl: urls.ledger!,
        workflowUrl: urls.workflow!,
        legalMinimums: loadLegalMinimums({}),
      },
      vault: new SubjectVault(subjectVaultKey(h.env, TEST_JWT_SECRET)),
      ledger: createEvidenceLedger(urls.ledger!, new ServiceIdentity(TEST_JWT_SECRET, 'compliance')),
      reportLedger: createReportLedger(urls.ledger!, new ServiceIdentity(TEST_JWT_SECRET, 'compliance')),
      workflow: new WorkflowClient(urls.workflow!),
      logger: quiet,
    });
    const delivered: { eventId: string; result: IngestResult }[] = [];
    stopBusIntake = await consumeIntake(
      h.db,
      async (event) => {
        const result = await m.evidence.ingestComplianceEvent(event);
        delivered.push({ eventId: event.id, result });
        return result;
      },
      { bus: h.bus, logger: quiet, pollMs: 100 },
    );
    const ids = [ruleRun.event_id, ...workflowRuns.map((e) => e.event_id)];
    await until(() => ids.every((id) => delivered.some((d) => d.eventId === id)), 'both events from the backbone');
    for (const id of ids) expect(delivered.find((d) => d.eventId === id)!.result).toMatchObject({ created: false });
    expect(delivered.every((d) => !d.result.created)).toBe(true);
    expect(await evidenceFrom('compliance.rule_execution')).toHaveLength(1);
    expect(await evidenceFrom('compliance.workflow_event')).toEqual(workflowRuns);
  });

  it('a report is generated from that evidence and signed off by a second person in the workflow', async () => {
    const period = quarter(new Date());
    const generated = await compliance(t.alice!, 'POST', '/api/compliance/reports', {
      framework: 'nist-800-53',
      period,
    });
    expect(generated.status).toBe(201);
    expect(generated.body.summary).toMatchObject({ evidence_items: 1 + workflowRuns.length, unrecorded: 0 });
    const detail = await compliance(t.alice!, 'GET', `/api/compliance/reports/${generated.body.id}`);
    const satisfied = detail.body.controls.filter((c: any) => c.satisfied).map((c: any) => c.control_id);
    expect(satisfied).toEqual(expect.arrayContaining(['si-10', 'au-2', 'au-12', 'au-6', 'cm-3']));

    const submitted = await compliance(t.alice!, 'POST', `/api/compliance/reports/${generated.body.id}/submit`, {});
    expect(submitted.status).toBe(200);
    report = submitted.body;
    const task = report.approval_task_id;
    // Neither the generator nor a tenant user without the reviewer role can decide it.
    const own = await call(
      t.alice!,
      'POST',
      `${urls.workflow}/approve/${task}`,
      { decision: 'approve' },
      { 'x-user-id': 'alice' },
    );
    expect(own.status).toBe(403);
    const carl = await call(
      t.carl!,
      'POST',
      `${urls.workflow}/approve/${task}`,
      { decision: 'approve' },
      { 'x-user-id': 'carl' },
    );
    expect(carl.status).toBe(403);
    const ok = await call(
      t.rita!,
      'POST',
      `${urls.workflow}/approve/${task}`,
      { decision: 'approve', notes: 'checked' },
      { 'x-user-id': 'rita' },
    );
    expect(ok.status).toBe(200);
    await until(
      async () =>
        (await compliance(t.alice!, 'GET', `/api/compliance/reports/${report.id}`)).body.status === 'signed_off',
      'the sign-off',
    );
    report = (await compliance(t.alice!, 'GET', `/api/compliance/reports/${report.id}`)).body;
    expect(report).toMatchObject({ status: 'signed_off', generated_by: 'alice', reviewed_by: 'rita' });
  });

  it("is exported as OSCAL assessment results that NIST's schema accepts", async () => {
    const r = await compliance(t.alice!, 'GET', `/api/compliance/reports/${report.id}/oscal`);
    expect(r.status).toBe(200);
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time', 'email', 'uri', 'uri-reference']);
    const validate = ajv.compile(
      JSON.parse(fs.readFileSync(path.join(OSCAL, 'oscal_assessment-results_schema.json'), 'utf8')) as object,
    );
    const valid = validate(r.body);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const findings = r.body['assessment-results'].results[0].findings;
    const si10 = findings.find((f: any) => f.target['target-id'] === 'si-10');
    expect(si10.target.status.state).toBe('satisfied');
  });

  it('is appended to the ledger as compliance_report with the spec fields', async () => {
    const r = await call(t.ann!, 'GET', `${urls.ledger}/events?event_type=compliance_report&limit=100`);
    const entries = (r.body.events as any[]).filter((e) => e.event_data.report_id === report.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      id: report.ledger_entry_id,
      event_data: {
        report_id: report.id,
        report_type: 'periodic',
        period: report.period.label,
        result: report.result,
        signed_off_by: 'rita',
      },
    });
  });

  it('a retention purge and an erasure leave every chain verifiable', async () => {
    // Retention: workflow payloads kept 90 days; the rejected run ended long ago.
    const policy = await compliance(t.ann!, 'POST', '/api/compliance/retention/policies', {
      record_type: 'workflow_payload',
      retain_days: 90,
    });
    expect([200, 201]).toContain(policy.status);
    await h.db.sql.query(
      `UPDATE workflow_executions SET completed_at = now() - interval '200 days' WHERE id = $1::uuid`,
      [workflowId],
    );
    const outcomes = await runPurgePass(h.db.sql, {
      recordType: 'workflow_payload',
      service: 'workflow',
      purge: purgeWorkflowPayloads,
    });
    expect(outcomes.filter((o) => o.tenantId === A).map((o) => o.purged)).toEqual([1]);
    const scrubbed = await h.db.sql.query<{ payload: unknown }>(
      `SELECT payload FROM workflow_executions WHERE id = $1::uuid`,
      [workflowId],
    );
    expect(scrubbed.rows[0]!.payload).toEqual({});

    // Erasure: dora's conversation is sealed under her key; the erasure shreds it.
    const vault = new SubjectVault(subjectVaultKey(h.env, TEST_JWT_SECRET));
    const store = createConversationStore(h.db.sql, vault);
    const c = await store.create(A, 'dora', {});
    await store.addExchange(A, c.id, 'I am Dora, dora@example.com', 'Hello Dora', 1);
    const erased = await compliance(t.ann!, 'POST', '/api/compliance/erasure-requests', { subject_id: 'dora' });
    expect(erased.status).toBe(201);
    expect((await store.get(A, c.id))!.messages.map((m) => m.content)).toEqual([ERASED, ERASED]);

    await deliverAll();
    const verify = await call(t.ann!, 'GET', `${urls.ledger}/verify?tenant_id=${A}`);
    expect(verify.body).toMatchObject({ valid: true });
    const events = await call(t.ann!, 'GET', `${urls.ledger}/events?tenant_id=${A}&limit=1000`);
    const types = new Set((events.body.events as any[]).map((e) => e.event_type));
    for (const type of [
      'compliance_evidence',
      'compliance_report',
      'retention.purged',
      'compliance.subject_erased',
      'rule_execution',
    ])
      expect(types).toContain(type);
    expect(JSON.stringify(events.body.events)).not.toContain('dora');
    // The report's entry is still provably in the signed tree, checked offline.
    const proof = await call(
      t.ann!,
      'GET',
      `${urls.ledger}/v1/ledger/proofs/inclusion?entry_id=${report.ledger_entry_id}`,
    );
    expect(proof.status).toBe(200);
    const jwks = await (await fetch(`${urls.ledger}/v1/ledger/jwks`)).json();
    expect(verifier.verify(proof.body, jwks)).toEqual(expect.any(String));
  });
});
