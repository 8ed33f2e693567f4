// Issue 34's "Done when": "findings reach compliance mapped to controls", walked over real
// services (ledger, compliance with its durable backbone intake, the compliance scanner; one
// database and backbone). A repository holding a hard-coded AWS key and a Dockerfile running as
// root is scanned with the certified baseline pack; the findings are served as SARIF 2.1.0 (the
// vendored OASIS schema, checked here by an Ajv of the test's own); each `scanner.finding` travels
// the scanner's notice outbox and the backbone to the compliance service's consumer, which makes it
// evidence for the control ids the rule carries in the tenant's NIST catalog, recorded in the
// ledger. The evidence and the controls' freshness are visible at compliance's REST routes for
// that tenant and for no other (tenant B imported the same catalog and scans nothing). The secret
// itself appears in no finding, report or evidence.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { AccessTokens } from '../../../platform/auth/jwt';
import baseline from '../../../subgraphs/compliance-scanner/baseline.pack.json';
import { defineComplianceService } from '../../../services/compliance';
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { ledgerService } from '../../../services/ledger';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';
import { call } from '../workflow/workflow.support';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../../..');
const A = 'joint-a';
const B = 'joint-b';
const SECRET = `AKIA${'Q'.repeat(16)}`;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const t: Record<string, string> = {};
let h: Harness;
let allowed: string;
const urls: Record<string, string> = {};

const scanner = (token: string, p: string, body?: unknown) => call(`${urls.scanner}/api/scanner${p}`, { token, body });
const compliance = (token: string, p: string, body?: unknown) =>
  call(`${urls.compliance}/api/compliance${p}`, { token, body });

beforeAll(async () => {
  allowed = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-joint-'));
  const repo = path.join(allowed, 'service');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'Dockerfile'), 'FROM node:20.11.1-alpine\nRUN npm ci\nCMD ["node", "main.js"]\n');
  fs.writeFileSync(path.join(repo, 'src/aws.ts'), `export const accessKeyId = "${SECRET}";\n`);
  const ledgerPort = await freePort();
  urls.ledger = `http://127.0.0.1:${ledgerPort}`;
  h = await startServices(
    [ledgerService, defineComplianceService(), defineComplianceScannerService()],
    {
      REQUIRE_AUTH: 'true',
      LEDGER_URL: urls.ledger,
      WORKFLOW_URL: 'http://127.0.0.1:9',
      SCANNER_ALLOWED_ROOTS: allowed,
      SCANNER_SWEEP_SECONDS: '3600',
      RETENTION_SWEEP_MINUTES: '0',
    },
    { ports: { ledger: ledgerPort } },
  );
  urls.compliance = h.services.compliance!.url;
  urls.scanner = h.services['compliance-scanner']!.url;
  const user = (username: string, tenantId: string, roles: string[]) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.bob = await user('bob', B, ['admin']);
  const catalog = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'platform/contracts/oscal/fixtures/nist-800-53-rev5-subset.catalog.json'), 'utf8'),
  ) as unknown;
  for (const token of [t.alice!, t.bob!])
    expect((await compliance(token, '/catalogs', { framework: 'nist-800-53', document: catalog })).status).toBe(201);
  expect((await scanner(t.alice!, '/packs', { pack: baseline })).status).toBe(201);
  expect((await scanner(t.rita!, '/packs/platform-baseline/versions/1.0.0/certify', {})).status).toBe(200);
  const target = await scanner(t.alice!, '/targets', { name: 'service', kind: 'repository', path: repo });
  expect(target.status).toBe(201);
  ids.target = target.body.id;
});

afterAll(async () => {
  await h?.close();
  if (allowed) fs.rmSync(allowed, { recursive: true, force: true });
});

const ids: Record<string, string> = {};
let findings: any[] = [];

/** The tenant's evidence that came from scanner findings, through compliance's REST door. */
async function scannerEvidence(token: string, controlId: string) {
  const r = await compliance(token, `/evidence?framework=nist-800-53&control_id=${controlId}&limit=100`);
  expect(r.status).toBe(200);
  return (r.body.items as any[]).filter((i) => i.source === 'event:scanner.finding');
}

it('a scan of the repository finds the hard-coded key and the root user, and serves SARIF 2.1.0', async () => {
  const scan = await scanner(t.alice!, '/scans', { target_id: ids.target, pack_id: 'platform-baseline' });
  expect([scan.status, scan.body.status]).toEqual([201, 'completed']);
  ids.scan = scan.body.id;
  findings = (await scanner(t.alice!, `/findings?scan_id=${ids.scan}`)).body.findings;
  expect(findings.map((f: any) => [f.rule_id, f.path, f.status]).sort()).toEqual([
    ['docker.root-user', 'Dockerfile', 'open'],
    ['secrets.hardcoded', 'src/aws.ts', 'open'],
  ]);

  const sarif = await scanner(t.alice!, `/scans/${ids.scan}/sarif`);
  expect(sarif.status).toBe(200);
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(
    JSON.parse(fs.readFileSync(path.join(ROOT, 'platform/contracts/sarif/sarif-2.1.0-rtm.5.schema.json'), 'utf8')),
  );
  expect([validate(sarif.body), validate.errors ?? []]).toEqual([true, []]);
  expect(sarif.body.version).toBe('2.1.0');
  const results = sarif.body.runs[0].results as any[];
  const secret = results.find((r) => r.ruleId === 'secrets.hardcoded');
  expect(secret.properties.controls).toEqual(['ia-5', 'sc-28']);
  expect(secret.partialFingerprints).toEqual(
    expect.objectContaining({
      [Object.keys(secret.partialFingerprints)[0]!]: findings.find((f) => f.rule_id === 'secrets.hardcoded')
        .fingerprint,
    }),
  );
  expect(JSON.stringify(sarif.body)).not.toContain(SECRET);
  expect(JSON.stringify(findings)).not.toContain(SECRET);
});

it('each finding reaches compliance through the backbone as evidence for the controls it carries', async () => {
  // secrets.hardcoded evidences ia-5 and sc-28; docker.root-user ac-6 (the baseline pack).
  await until(async () => (await scannerEvidence(t.alice!, 'ia-5')).length === 1, 'the secret finding as evidence');
  await until(async () => (await scannerEvidence(t.alice!, 'ac-6')).length === 1, 'the root-user finding as evidence');
  const [secret] = await scannerEvidence(t.alice!, 'ia-5');
  expect(await scannerEvidence(t.alice!, 'sc-28')).toEqual([expect.objectContaining({ id: secret.id })]);
  expect(secret.controls.map((c: any) => `${c.framework}:${c.control_id}`).sort()).toEqual([
    'nist-800-53:ia-5',
    'nist-800-53:sc-28',
  ]);
  expect(secret.event_type).toBe('scanner_finding');
  const finding = findings.find((f) => f.rule_id === 'secrets.hardcoded');
  expect(secret.revisions[0].content.data).toMatchObject({
    tenant_id: A,
    scan_id: ids.scan,
    rule_id: 'secrets.hardcoded',
    status: 'open',
    target_kind: 'repository',
    fingerprint: finding.fingerprint,
    controls: ['ia-5', 'sc-28'],
  });
  expect(JSON.stringify(secret)).not.toContain(SECRET);
  // Recorded in the tenant's ledger (the evidence carries its entry).
  await until(
    async () => Boolean((await compliance(t.alice!, `/evidence/${secret.id}`)).body.revisions[0].ledger_entry_id),
    'the evidence in the ledger',
  );

  const [root] = await scannerEvidence(t.alice!, 'ac-6');
  expect(root.controls.map((c: any) => c.control_id)).toEqual(['ac-6']);
  expect(root.revisions[0].content.data).toMatchObject({ rule_id: 'docker.root-user', scan_id: ids.scan });

  // The controls' freshness counts them.
  for (const control of ['ia-5', 'sc-28', 'ac-6']) {
    const c = await compliance(t.alice!, `/frameworks/nist-800-53/controls/${control}`);
    expect([c.status, c.body.freshness.status, c.body.freshness.evidence_count]).toEqual([200, 'fresh', 1]);
  }
  const unrelated = await compliance(t.alice!, '/frameworks/nist-800-53/controls/au-2');
  expect(unrelated.body.freshness).toMatchObject({ status: 'stale', evidence_count: 0 });
});

it('another tenant sees neither the findings nor the evidence', async () => {
  const [secret] = await scannerEvidence(t.alice!, 'ia-5');
  expect(await scannerEvidence(t.bob!, 'ia-5')).toEqual([]);
  expect((await compliance(t.bob!, `/evidence/${secret.id}`)).status).toBe(404);
  const all = await compliance(t.bob!, '/evidence?framework=nist-800-53&limit=100');
  expect(all.body.items).toEqual([]);
  for (const control of ['ia-5', 'sc-28', 'ac-6']) {
    const c = await compliance(t.bob!, `/frameworks/nist-800-53/controls/${control}`);
    expect(c.body.freshness).toMatchObject({ status: 'stale', evidence_count: 0 });
  }
  // Naming tenant A is refused outright.
  expect((await compliance(t.bob!, `/evidence?framework=nist-800-53&tenant_id=${A}`)).status).toBe(403);
  expect((await scanner(t.bob!, `/scans/${ids.scan}/sarif`)).status).toBe(404);
  expect((await scanner(t.bob!, '/findings')).body.findings).toEqual([]);
});

it('a fix is evidence too: the next scan resolves the finding and compliance records it', async () => {
  fs.writeFileSync(path.join(allowed, 'service/src/aws.ts'), 'export const accessKeyId = process.env.AWS_KEY;\n');
  const scan = await scanner(t.alice!, '/scans', { target_id: ids.target, pack_id: 'platform-baseline' });
  expect(scan.body.summary).toMatchObject({ fixed: 1 });
  await until(async () => (await scannerEvidence(t.alice!, 'ia-5')).length === 2, 'the fix as evidence');
  const statuses = (await scannerEvidence(t.alice!, 'ia-5')).map((i) => i.revisions[0].content.data.status).sort();
  expect(statuses).toEqual(['open', 'resolved']);
  expect(await scannerEvidence(t.bob!, 'ia-5')).toEqual([]);
});
