// Compliance reports over REST with a real ledger behind the compliance service: a report is
// generated (a snapshot of the period's evidence and ONE signed ledger checkpoint), exported as
// JSON with inclusion proofs that the offline verifier accepts against the ledger's JWKS, as OSCAL
// assessment results that NIST's vendored schema accepts (Ajv, here, independently of the
// service's own check), and as an HTML document where hostile markup stays text; it is signed off
// by a second person (its generator gets 403 with nothing changed and nothing in the ledger) and
// then appended to the ledger as `compliance_report` with the spec's fields. Hostile tenancy:
// another tenant cannot read, list, decide or generate in the report's tenant, nor name a
// framework it does not have; nothing is written by a refused request.
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { AccessTokens } from '../../../platform/auth/jwt';
import { complianceService } from '../../../services/compliance';
import { ledgerService } from '../../../services/ledger';
import { workflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the verifier is a CommonJS script auditors run as is
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../..');
const OSCAL = path.join(ROOT, 'platform/contracts/oscal');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(OSCAL, 'fixtures', name), 'utf8')) as any;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const A = 'rep-a';
const B = 'rep-b';
const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>';

let h: Harness;
let url: string;
let ledgerUrl: string;
const t: Record<string, string> = {};

async function call(token: string, method: string, p: string, body?: unknown, base = url) {
  const res = await fetch(base + p, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // the HTML document
  }
  return { status: res.status, body: parsed, type: res.headers.get('content-type') ?? '' };
}

async function reportEntries(token: string) {
  const r = await call(token, 'GET', '/events?event_type=compliance_report&limit=100', undefined, ledgerUrl);
  expect(r.status).toBe(200);
  return r.body.events as any[];
}

async function evidence(token: string, controls: string[], collectedAt: string, source?: string) {
  const r = await call(token, 'POST', '/api/compliance/evidence', {
    controls: controls.map((c) => ({ framework: 'nist-800-53', control_id: c })),
    content: { review: 'quarterly access review', controls },
    collected_at: collectedAt,
    ...(source ? { source } : {}),
  });
  expect(r.status).toBe(201);
  expect(r.body.revisions[0].ledger_entry_id).toEqual(expect.any(String));
  return r.body;
}

beforeAll(async () => {
  const ledgerPort = await freePort();
  const workflowPort = await freePort();
  h = await startServices(
    [ledgerService, workflowService, complianceService],
    {
      REQUIRE_AUTH: 'true',
      LEDGER_URL: `http://127.0.0.1:${ledgerPort}`,
      // Sign-offs run as the workflow's approval step (report-signoff-workflow.test.ts).
      WORKFLOW_URL: `http://127.0.0.1:${workflowPort}`,
      // Each generation takes a checkpoint on demand; the file generates more than the default 6 a minute.
      LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE: '1000',
    },
    { ports: { ledger: ledgerPort, workflow: workflowPort } },
  );
  url = h.services.compliance!.url;
  ledgerUrl = h.services.ledger!.url;
  const user = (username: string, tenantId: string, roles: string[], scopes = ['read', 'write']) =>
    tokens.issue({ username, tenantId, roles, scopes });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.ursula = await user('ursula', A, ['user']);
  t.audrey = await user('audrey', A, ['auditor'], ['read', 'write']);
  t.bob = await user('bob', B, ['admin']);
  for (const [tenantToken, framework] of [
    [t.alice, 'nist-800-53'],
    [t.bob, 'nist-800-53-b'],
  ] as const) {
    const r = await call(tenantToken!, 'POST', '/api/compliance/catalogs', {
      framework,
      document: fixture('nist-800-53-rev5-subset.catalog.json'),
    });
    expect(r.status).toBe(201);
  }
  // Q3 2026: two items in the period (one with a hostile source), one before it.
  await evidence(t.alice!, ['ac-2', 'au-2'], '2026-08-10T09:00:00Z', HOSTILE);
  await evidence(t.alice!, ['ac-2'], '2026-09-20T09:00:00Z');
  await evidence(t.alice!, ['si-4'], '2026-05-01T09:00:00Z');
});

afterAll(async () => {
  await h?.close();
});

describe('a report generated, exported, signed off by a second person and appended to the ledger', () => {
  let report: any;

  it('generates a report of a quarter: per-control verdicts, counts, one signed checkpoint', async () => {
    const r = await call(t.alice!, 'POST', '/api/compliance/reports', { framework: 'nist-800-53', period: '2026-Q3' });
    expect(r.status).toBe(201);
    report = r.body;
    expect(report).toMatchObject({
      framework: 'nist-800-53',
      report_type: 'periodic',
      tenant_id: A,
      period: { start: '2026-07-01T00:00:00.000Z', end: '2026-10-01T00:00:00.000Z', label: '2026-Q3' },
      status: 'generated',
      result: 'partial',
      generated_by: 'alice',
      summary: { controls: 20, satisfied: 2, not_satisfied: 18, evidence_items: 2, evidence_links: 3, unrecorded: 0 },
      ledger_entry_id: null,
    });
    expect(report.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(report.checkpoint).toMatchObject({ format: 'ledger-checkpoint/v1', tenant_id: A });
    const full = await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}`);
    expect(full.status).toBe(200);
    const byId = Object.fromEntries(full.body.controls.map((c: any) => [c.control_id, c]));
    expect(byId['ac-2']).toMatchObject({ satisfied: true, freshness: 'fresh', evidence_count: 2 });
    expect(byId['au-2']).toMatchObject({ satisfied: true, evidence_count: 1 });
    // Evidence collected before the period does not count for it.
    expect(byId['si-4']).toMatchObject({ satisfied: false, freshness: 'stale', evidence_count: 0 });
    const list = await call(t.alice!, 'GET', '/api/compliance/reports');
    expect(list.body.reports.map((x: any) => x.id)).toContain(report.id);
  });

  it('serves the evidence with inclusion proofs against the report checkpoint, which the offline verifier accepts', async () => {
    const jwks = (await call(t.alice!, 'GET', '/v1/ledger/jwks', undefined, ledgerUrl)).body;
    const page = await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}/evidence?proofs=true&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(2);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const next = await call(
      t.alice!,
      'GET',
      `/api/compliance/reports/${report.id}/evidence?proofs=true&cursor=${encodeURIComponent(page.body.next_cursor)}`,
    );
    const items = [...page.body.items, ...next.body.items];
    expect(items.map((i: any) => i.control_id).sort()).toEqual(['ac-2', 'ac-2', 'au-2']);
    expect(next.body.next_cursor).toBeNull();
    for (const item of items) {
      expect(item.proof.checkpoint).toEqual(report.checkpoint);
      expect(item.proof.entry.event_data.content_sha256).toBe(item.content_sha256);
      expect(verifier.verify(item.proof, jwks)).toEqual(expect.any(String));
    }
  });

  it("exports OSCAL assessment results that NIST's schema accepts", async () => {
    const r = await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}/oscal`);
    expect(r.status).toBe(200);
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time', 'email', 'uri', 'uri-reference']);
    const validate = ajv.compile(
      JSON.parse(fs.readFileSync(path.join(OSCAL, 'oscal_assessment-results_schema.json'), 'utf8')) as object,
    );
    expect(validate.errors ?? []).toEqual([]);
    expect(validate(r.body)).toBe(true);
    const result = r.body['assessment-results'].results[0];
    expect(result.findings).toHaveLength(20);
    const ac2 = result.findings.find((f: any) => f.target['target-id'] === 'ac-2');
    expect(ac2.target.status.state).toBe('satisfied');
    const obs = result.observations.find((o: any) => o.uuid === ac2['related-observations'][0]['observation-uuid']);
    expect(obs['relevant-evidence']).toHaveLength(2);
    // The same report exports to the same document.
    expect((await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}/oscal`)).body).toEqual(r.body);
  });

  it('renders the HTML document with proofs, hostile markup as text', async () => {
    const r = await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}/document`);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/html/);
    const html = r.body as string;
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain(`tree size ${report.checkpoint.tree_size}`);
    expect(html).toMatch(/leaf \d+ of \d+/);
    expect(html).toContain('@media print');
  });

  it('refuses sign-off by its generator (403, nothing changed, nothing in the ledger) and by a non-reviewer', async () => {
    const sub = await call(t.alice!, 'POST', `/api/compliance/reports/${report.id}/submit`, {});
    expect(sub.body.status).toBe('pending_review');
    const own = await call(t.alice!, 'POST', `/api/compliance/reports/${report.id}/sign-off`, { decision: 'approve' });
    expect(own.status).toBe(403);
    expect(own.body.detail).toMatch(/generated a report cannot sign it off/);
    const plain = await call(t.ursula!, 'POST', `/api/compliance/reports/${report.id}/sign-off`, {
      decision: 'approve',
    });
    expect(plain.status).toBe(403);
    const auditor = await call(t.audrey!, 'POST', `/api/compliance/reports/${report.id}/sign-off`, {
      decision: 'approve',
    });
    expect(auditor.status).toBe(403);
    const after = await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}`);
    expect(after.body).toMatchObject({ status: 'pending_review', reviewed_by: null, ledger_entry_id: null });
    expect(await reportEntries(t.alice!)).toEqual([]);
  });

  it('is signed off by a reviewer and appended to the ledger as compliance_report with the spec fields', async () => {
    const r = await call(t.rita!, 'POST', `/api/compliance/reports/${report.id}/sign-off`, {
      decision: 'approve',
      notes: `checked ${HOSTILE}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'signed_off', reviewed_by: 'rita', ledger_entry_id: expect.any(String) });
    const entries = await reportEntries(t.alice!);
    expect(entries).toHaveLength(1);
    expect(entries[0].id).toBe(r.body.ledger_entry_id);
    expect(entries[0].event_data).toMatchObject({
      report_id: report.id,
      report_type: 'periodic',
      period: '2026-Q3',
      result: 'partial',
      framework: 'nist-800-53',
      content_sha256: report.content_sha256,
      signed_off_by: 'rita',
      generated_by: 'alice',
    });
    // Decided once: a second decision is a conflict and adds nothing.
    const again = await call(t.rita!, 'POST', `/api/compliance/reports/${report.id}/sign-off`, { decision: 'reject' });
    expect(again.status).toBe(409);
    expect(await reportEntries(t.alice!)).toHaveLength(1);
    const html = (await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}/document`)).body as string;
    expect(html).toContain('by rita');
    expect(html).not.toContain('<script>alert');
    const oscal = (await call(t.alice!, 'GET', `/api/compliance/reports/${report.id}/oscal`)).body;
    expect(oscal['assessment-results'].results[0].prop).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'signed-off-by', value: 'rita' })]),
    );
  });

  it('rejects: a rejected report is never in the ledger', async () => {
    const gen = await call(t.alice!, 'POST', '/api/compliance/reports', {
      framework: 'nist-800-53',
      period: { start: '2026-08-01T00:00:00Z', end: '2026-09-01T00:00:00Z' },
      report_type: 'monthly',
    });
    expect(gen.status).toBe(201);
    expect(gen.body.period.label).toBe('2026-08-01T00:00:00.000Z/2026-09-01T00:00:00.000Z');
    const early = await call(t.rita!, 'POST', `/api/compliance/reports/${gen.body.id}/sign-off`, {
      decision: 'approve',
    });
    expect(early.status).toBe(409);
    await call(t.alice!, 'POST', `/api/compliance/reports/${gen.body.id}/submit`, {});
    const r = await call(t.rita!, 'POST', `/api/compliance/reports/${gen.body.id}/sign-off`, {
      decision: 'reject',
      notes: 'missing evidence for au-6',
    });
    expect(r.body).toMatchObject({ status: 'rejected', review_notes: 'missing evidence for au-6' });
    expect(await reportEntries(t.alice!)).toHaveLength(1);
  });
});

describe('hostile input and tenancy', () => {
  it('answers bad periods and ids with 422 and writes nothing', async () => {
    const before = (await call(t.alice!, 'GET', '/api/compliance/reports')).body.reports.length;
    for (const [period, loc] of [
      ['garbage', ['body', 'period']],
      ['2099-Q1', ['body', 'period', 'start']],
      [{ start: '2026-09-01T00:00:00Z', end: '2026-08-01T00:00:00Z' }, ['body', 'period', 'end']],
      [{ start: '2024-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' }, ['body', 'period']],
      [{ start: 'yesterday', end: '2026-01-01T00:00:00Z' }, ['body', 'period', 'start']],
    ] as const) {
      const r = await call(t.alice!, 'POST', '/api/compliance/reports', { framework: 'nist-800-53', period });
      expect([r.status, r.body.detail[0].loc]).toEqual([422, loc]);
    }
    const badType = await call(t.alice!, 'POST', '/api/compliance/reports', {
      framework: 'nist-800-53',
      period: '2026-Q3',
      report_type: '<b>',
    });
    expect(badType.status).toBe(422);
    expect((await call(t.alice!, 'GET', '/api/compliance/reports/not-a-uuid')).status).toBe(422);
    expect((await call(t.alice!, 'GET', `/api/compliance/reports/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await call(t.alice!, 'GET', '/api/compliance/reports')).body.reports).toHaveLength(before);
  });

  it("another tenant's report is absent; naming its tenant is 403; its framework is 404; nothing is written", async () => {
    const mine = (await call(t.alice!, 'GET', '/api/compliance/reports')).body.reports;
    const id = mine[0].id;
    for (const p of ['', '/evidence', '/oscal', '/document'])
      expect((await call(t.bob!, 'GET', `/api/compliance/reports/${id}${p}`)).status).toBe(404);
    expect((await call(t.bob!, 'GET', `/api/compliance/reports/${id}?tenant_id=${A}`)).status).toBe(403);
    expect((await call(t.bob!, 'GET', '/api/compliance/reports')).body.reports).toEqual([]);
    expect((await call(t.bob!, 'POST', `/api/compliance/reports/${id}/submit`, {})).status).toBe(404);
    expect((await call(t.bob!, 'POST', `/api/compliance/reports/${id}/sign-off`, { decision: 'approve' })).status).toBe(
      404,
    );
    // Naming the other tenant, or a framework only the other tenant has.
    const named = await call(t.bob!, 'POST', '/api/compliance/reports', {
      framework: 'nist-800-53',
      period: '2026-Q3',
      tenant_id: A,
    });
    expect(named.status).toBe(403);
    const foreign = await call(t.bob!, 'POST', '/api/compliance/reports', {
      framework: 'nist-800-53',
      period: '2026-Q3',
    });
    expect(foreign.status).toBe(404);
    expect((await call(t.bob!, 'GET', '/api/compliance/reports')).body.reports).toEqual([]);
    expect((await call(t.alice!, 'GET', '/api/compliance/reports')).body.reports).toHaveLength(mine.length);
  });

  it('lets an auditor read reports but not generate them', async () => {
    expect((await call(t.audrey!, 'GET', '/api/compliance/reports')).status).toBe(200);
    const r = await call(t.audrey!, 'POST', '/api/compliance/reports', { framework: 'nist-800-53', period: '2026-Q3' });
    expect(r.status).toBe(403);
  });

  it('reports a tenant without evidence: every control stale, no checkpoint, result fail', async () => {
    const r = await call(t.bob!, 'POST', '/api/compliance/reports', { framework: 'nist-800-53-b', period: '2026-Q3' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ result: 'fail', checkpoint: null, summary: { controls: 20, satisfied: 0 } });
    expect((await call(t.bob!, 'GET', `/api/compliance/reports/${r.body.id}/oscal`)).status).toBe(200);
  });
});
