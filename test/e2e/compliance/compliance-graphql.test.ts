// The compliance subgraph at /graphql over the same domain as REST: imports, a framework's
// controls with their freshness (one query for the framework), evidence and its revisions, the
// auditor's mutations refused with FORBIDDEN, hostile documents as BAD_USER_INPUT naming the
// field, and another tenant's reads null or empty.
import fs from 'node:fs';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { complianceService } from '../../../services/compliance';
import { ledgerService } from '../../../services/ledger';
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
  h = await startServices(
    [ledgerService, complianceService],
    { REQUIRE_AUTH: 'true', LEDGER_URL: `http://127.0.0.1:${ledgerPort}` },
    { ports: { ledger: ledgerPort } },
  );
  t.alice = await tokens.issue({ username: 'alice', tenantId: 'gq-a', roles: ['user'], scopes: ['read', 'write'] });
  t.audrey = await tokens.issue({ username: 'audrey', tenantId: 'gq-a', roles: ['auditor'], scopes: ['read'] });
  t.bob = await tokens.issue({ username: 'bob', tenantId: 'gq-b', roles: ['admin'], scopes: ['read', 'write'] });
});
afterAll(async () => {
  await h?.close();
});

const IMPORT = `mutation ($input: ComplianceImportInput!) {
  importOscalCatalog(input: $input) { created framework { key kind controlCount sha256 } }
}`;

it('imports a catalog, records evidence and reads controls with their freshness', async () => {
  const imported = await gql(t.alice!, IMPORT, {
    input: { framework: 'nist-800-53', document: fixture('nist-800-53-rev5-subset.catalog.json') },
  });
  expect(imported.errors).toBeUndefined();
  expect(imported.data.importOscalCatalog).toMatchObject({
    created: true,
    framework: { key: 'nist-800-53', kind: 'CATALOG' },
  });

  const added = await gql(
    t.alice!,
    `mutation ($input: ComplianceAddEvidenceInput!) {
      addComplianceEvidence(input: $input) { id revisions { revision contentSha256 ledgerEntryId } }
    }`,
    { input: { controls: [{ framework: 'nist-800-53', controlId: 'au-9' }], content: { worm: true } } },
  );
  expect(added.errors).toBeUndefined();
  const id = added.data.addComplianceEvidence.id as string;
  expect(added.data.addComplianceEvidence.revisions[0].ledgerEntryId).toEqual(expect.any(String));

  const read = await gql(
    t.alice!,
    `{ complianceFramework(key: "nist-800-53") { controls { controlId freshness { status evidenceCount } } } }`,
  );
  const au9 = read.data.complianceFramework.controls.find((c: any) => c.controlId === 'au-9');
  expect(au9.freshness).toEqual({ status: 'FRESH', evidenceCount: 1 });
  expect(read.data.complianceFramework.controls.find((c: any) => c.controlId === 'ac-2').freshness.status).toBe(
    'STALE',
  );

  const proof = await gql(t.alice!, `query ($id: ID!) { complianceEvidenceProof(id: $id) { revision ledger } }`, {
    id,
  });
  expect(proof.errors).toBeUndefined();
  expect(proof.data.complianceEvidenceProof.ledger.entry.event_type).toBe('compliance_evidence');

  // Another tenant: null by id, empty lists, FORBIDDEN when naming the tenant.
  const foreign = await gql(
    t.bob!,
    `query ($id: ID!) { complianceEvidenceItem(id: $id) { id } complianceFrameworks { key } complianceFramework(key: "nist-800-53") { key } }`,
    { id },
  );
  expect(foreign.data).toEqual({ complianceEvidenceItem: null, complianceFrameworks: [], complianceFramework: null });
  const named = await gql(t.bob!, `{ complianceFrameworks(tenantId: "gq-a") { key } }`);
  expect(named.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

it("refuses the auditor's changes and reports hostile documents as BAD_USER_INPUT", async () => {
  const byAuditor = await gql(t.audrey!, IMPORT, {
    input: { framework: 'other', document: fixture('nist-800-53-rev5-subset.catalog.json') },
  });
  expect(byAuditor.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const read = await gql(t.audrey!, `{ complianceFrameworks { key } }`);
  expect(read.data.complianceFrameworks).toEqual([{ key: 'nist-800-53' }]);

  const dangling = fixture('nist-800-53-moderate-subset.profile.json') as any;
  dangling.profile.imports[0]['include-controls'][0]['with-ids'] = ['nope-1'];
  const refused = await gql(
    t.alice!,
    `mutation ($input: ComplianceImportInput!) { importOscalProfile(input: $input) { created } }`,
    { input: { framework: 'moderate', document: dangling } },
  );
  expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect(refused.errors?.[0]?.message).toContain('nope-1');
  const after = await gql(t.alice!, `{ complianceFramework(key: "moderate") { key } }`);
  expect(after.data.complianceFramework).toBeNull();
});
