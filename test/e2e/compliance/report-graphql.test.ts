// Compliance reports through the subgraph at /graphql, over the same domain as REST: generate
// (a quarter, or start and end), read with controls, evidence with proofs and the OSCAL export,
// submit, the generator's sign-off refused with FORBIDDEN and nothing changed, a reviewer's
// sign-off with its ledger entry; another tenant's report null and absent from its list; bad
// periods BAD_USER_INPUT.
import fs from 'node:fs';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { complianceService } from '../../../services/compliance';
import { ledgerService } from '../../../services/ledger';
import { workflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';

jest.setTimeout(120_000);

const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);

let h: Harness;
const t: Record<string, string> = {};

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${h.services.compliance!.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string; extensions?: any }[] };
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
      LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE: '100',
    },
    { ports: { ledger: ledgerPort, workflow: workflowPort } },
  );
  t.alice = await tokens.issue({ username: 'alice', tenantId: 'gr-a', roles: ['user'], scopes: ['read', 'write'] });
  t.rita = await tokens.issue({ username: 'rita', tenantId: 'gr-a', roles: ['reviewer'], scopes: ['read', 'write'] });
  t.bob = await tokens.issue({ username: 'bob', tenantId: 'gr-b', roles: ['admin'], scopes: ['read', 'write'] });
  const imported = await gql(
    t.alice!,
    `mutation ($input: ComplianceImportInput!) { importOscalCatalog(input: $input) { created } }`,
    { input: { framework: 'nist-800-53', document: fixture('nist-800-53-rev5-subset.catalog.json') } },
  );
  expect(imported.errors).toBeUndefined();
  const added = await gql(
    t.alice!,
    `mutation ($input: ComplianceAddEvidenceInput!) { addComplianceEvidence(input: $input) { id } }`,
    {
      input: {
        controls: [{ framework: 'nist-800-53', controlId: 'au-9' }],
        content: { worm: true },
        collectedAt: '2026-08-01T00:00:00Z',
      },
    },
  );
  expect(added.errors).toBeUndefined();
});
afterAll(async () => {
  await h?.close();
});

const REPORT = `id status result framework reportType period { start end label }
  summary { controls satisfied notSatisfied evidenceItems evidenceLinks unrecorded }
  checkpoint generatedBy reviewedBy ledgerEntryId documentPath`;

it('generates, reads, exports, submits and signs off a report by a second person', async () => {
  const gen = await gql(
    t.alice!,
    `mutation ($input: ComplianceGenerateReportInput!) { generateComplianceReport(input: $input) { ${REPORT} } }`,
    { input: { framework: 'nist-800-53', period: '2026-Q3' } },
  );
  expect(gen.errors).toBeUndefined();
  const report = gen.data.generateComplianceReport;
  expect(report).toMatchObject({
    status: 'GENERATED',
    result: 'PARTIAL',
    reportType: 'periodic',
    period: { label: '2026-Q3', start: '2026-07-01T00:00:00.000Z' },
    summary: { controls: 20, satisfied: 1, notSatisfied: 19, evidenceItems: 1, evidenceLinks: 1, unrecorded: 0 },
    generatedBy: 'alice',
    documentPath: `/api/compliance/reports/${report.id}/document`,
  });
  expect(report.checkpoint.tree_size).toBeGreaterThan(0);

  const read = await gql(
    t.alice!,
    `query ($id: ID!) { complianceReport(id: $id) {
      controls { controlId satisfied freshness evidenceCount }
      evidence(proofs: true) { items { controlId contentSha256 proof } nextCursor }
      oscal
    } }`,
    { id: report.id },
  );
  expect(read.errors).toBeUndefined();
  const r = read.data.complianceReport;
  expect(r.controls.find((c: any) => c.controlId === 'au-9')).toEqual({
    controlId: 'au-9',
    satisfied: true,
    freshness: 'FRESH',
    evidenceCount: 1,
  });
  expect(r.evidence.items).toHaveLength(1);
  expect(r.evidence.items[0].proof.checkpoint).toEqual(report.checkpoint);
  expect(r.oscal['assessment-results'].results[0].findings).toHaveLength(20);

  const submitted = await gql(t.alice!, `mutation ($id: ID!) { submitComplianceReport(id: $id) { status } }`, {
    id: report.id,
  });
  expect(submitted.data.submitComplianceReport.status).toBe('PENDING_REVIEW');

  const SIGN = `mutation ($id: ID!, $d: ComplianceReportDecision!) { signOffComplianceReport(id: $id, decision: $d) { ${REPORT} } }`;
  const own = await gql(t.alice!, SIGN, { id: report.id, d: 'APPROVE' });
  expect(own.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const still = await gql(t.alice!, `query ($id: ID!) { complianceReport(id: $id) { status reviewedBy } }`, {
    id: report.id,
  });
  expect(still.data.complianceReport).toEqual({ status: 'PENDING_REVIEW', reviewedBy: null });

  const signed = await gql(t.rita!, SIGN, { id: report.id, d: 'APPROVE' });
  expect(signed.errors).toBeUndefined();
  expect(signed.data.signOffComplianceReport).toMatchObject({
    status: 'SIGNED_OFF',
    reviewedBy: 'rita',
    ledgerEntryId: expect.any(String),
  });

  // Another tenant: null by id, absent from its list.
  const other = await gql(t.bob!, `query ($id: ID!) { complianceReport(id: $id) { id } }`, { id: report.id });
  expect(other.data.complianceReport).toBeNull();
  const list = await gql(t.bob!, `{ complianceReports { reports { id } nextCursor } }`);
  expect(list.data.complianceReports).toEqual({ reports: [], nextCursor: null });
  const mine = await gql(t.alice!, `{ complianceReports(status: SIGNED_OFF) { reports { id } } }`);
  expect(mine.data.complianceReports.reports).toEqual([{ id: report.id }]);
});

it('refuses bad periods with BAD_USER_INPUT and writes nothing', async () => {
  const GEN = `mutation ($input: ComplianceGenerateReportInput!) { generateComplianceReport(input: $input) { id } }`;
  for (const input of [
    { framework: 'nist-800-53' },
    { framework: 'nist-800-53', period: 'Q3' },
    { framework: 'nist-800-53', start: '2026-09-01T00:00:00Z', end: '2026-08-01T00:00:00Z' },
  ]) {
    const r = await gql(t.alice!, GEN, { input });
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  }
  const named = await gql(t.bob!, GEN, { input: { framework: 'nist-800-53', period: '2026-Q3', tenantId: 'gr-a' } });
  expect(named.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const list = await gql(t.alice!, `{ complianceReports { reports { id } } }`);
  expect(list.data.complianceReports.reports).toHaveLength(1);
});
