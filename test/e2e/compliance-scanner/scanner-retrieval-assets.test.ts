// Retrieval documents as data-asset targets, over the real retrieval service: documents uploaded
// by two tenants, the scanner reading tenant A's through the typed RetrievalClient (GET /documents,
// GET /documents/{id}, GET /documents/{id}/chunks) as itself for A, and sampling their fields and
// text for unmasked PII with platform/redaction's detectors. Findings name the document, the chunk
// and the field, never the value; a masked document passes; tenant B's documents are never read
// (absent from A's `retrieval:documents` scan, and a 404 and a failed scan when A names one);
// the chunks route itself keeps tenants apart.
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { ragService } from '../../../services/rag';
import { startServices, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';
import { call as ragCall, token, upload } from '../rag/rag.support';
import { call } from '../workflow/workflow.support';

jest.setTimeout(240_000);

const A = 'rag-asset-a';
const B = 'rag-asset-b';
const EMAIL = 'jane.doe@example.com';
const SSN = '123-45-6789';
const B_EMAIL = 'bob.secret@example.org';
const t: Record<string, string> = {};
const docs: Record<string, string> = {};
let h: Harness;
let url: string;
let rag: string;

const PACK = {
  metadata: { pack_id: 'data-pii', version: '1.0.0', name: 'Data PII' },
  rules: [
    {
      id: 'data.unmasked-pii',
      severity: 'high',
      description: 'A record of a data asset holds PII in the clear.',
      remediation: 'Mask or tokenize the field before the document is indexed.',
      controls: ['sc-28'],
      input: 'pii',
    },
  ],
};

const api = (tok: string, p: string, body?: unknown) => call(`${url}/api/scanner${p}`, { token: tok, body });

beforeAll(async () => {
  const ports = { rag: await freePort() };
  h = await startServices(
    [ragService, defineComplianceScannerService()],
    {
      REQUIRE_AUTH: 'true',
      RAG_URL: `http://127.0.0.1:${ports.rag}`,
      WORKFLOW_URL: 'http://127.0.0.1:9',
      OCR_URL: 'http://127.0.0.1:9',
      SCANNER_SWEEP_SECONDS: '3600',
    },
    { ports },
  );
  rag = h.services.rag!.url;
  url = h.services['compliance-scanner']!.url;
  t.alice = await token(A, ['user'], 'alice');
  t.rita = await token(A, ['reviewer'], 'rita');
  t.bob = await token(B, ['admin'], 'bob');
  const put = async (tok: string, title: string, content: string, fields: Record<string, string> = {}) => {
    const r = await upload(rag, tok, { content, filename: `${title}.txt` }, { title, ...fields });
    expect(r.status).toBe(200);
    return r.body.id as string;
  };
  docs.leaky = await put(
    t.alice!,
    'Onboarding notes',
    `Welcome aboard.\n\nFor payroll questions write to ${EMAIL} any weekday.\n\nThe new hire's SSN ${SSN} is on file.`,
  );
  docs.clean = await put(t.alice!, 'Masked notes', 'Contact j***@example.com; SSN ***-**-6789 on file.');
  docs.contact = await put(t.alice!, 'Holiday policy', 'Twenty-five days of paid leave a year.', {
    description: `Owner: ${EMAIL}`,
  });
  docs.other = await put(t.bob!, 'Bob private', `Reach me at ${B_EMAIL} for anything.`);
  expect((await api(t.alice!, '/packs', { pack: PACK })).status).toBe(201);
  expect((await api(t.rita!, '/packs/data-pii/versions/1.0.0/certify', {})).status).toBe(200);
});

afterAll(async () => {
  await h?.close();
});

const ids: Record<string, string> = {};

it('the chunks route serves a document’s text in order to its tenant only', async () => {
  const own = await ragCall(rag, 'GET', `/documents/${docs.leaky}/chunks`, t.alice);
  expect(own.status).toBe(200);
  expect(own.body.document_id).toBe(docs.leaky);
  expect(own.body.chunks.map((c: any) => c.content).join('\n')).toContain(EMAIL);
  const ords = own.body.chunks.map((c: any) => c.ord);
  expect(ords).toEqual([...ords].sort((x: number, y: number) => x - y));
  expect((await ragCall(rag, 'GET', `/documents/${docs.leaky}/chunks`, t.bob)).status).toBe(404);
  expect((await ragCall(rag, 'GET', `/documents/${docs.other}/chunks`, t.alice)).status).toBe(404);
  const bad = await ragCall(rag, 'GET', `/documents/${docs.leaky}/chunks?limit=0`, t.alice);
  expect(bad.status).toBe(422);
  expect((await ragCall(rag, 'GET', `/documents/${docs.leaky}/chunks`)).status).toBe(401);
});

it('registers retrieval documents as data assets, refusing other references', async () => {
  for (const path of ['retrieval:document/not-a-uuid', 'retrieval:docs', 'retrieval:documents/x']) {
    const bad = await api(t.alice!, '/targets', { name: 'x', kind: 'data_asset', path });
    expect(bad.status).toBe(422);
  }
  const all = await api(t.alice!, '/targets', { name: 'knowledge', kind: 'data_asset', path: 'retrieval:documents' });
  expect(all.status).toBe(201);
  ids.all = all.body.id;
});

it("finds unmasked PII in A's documents by document, chunk and field, never the value; B's are never read", async () => {
  const scan = await api(t.alice!, '/scans', { target_id: ids.all, pack_id: 'data-pii' });
  expect([scan.status, scan.body.status]).toEqual([201, 'completed']);
  const findings = (await api(t.alice!, `/findings?scan_id=${scan.body.id}`)).body.findings as any[];
  const where = findings.map((f) => [f.path.replace(/\/chunks\/\d+$/, '/chunks/N'), f.detail]).sort();
  expect(where).toEqual(
    [
      [`retrieval:document/${docs.leaky}/chunks/N`, '$.content:email'],
      [`retrieval:document/${docs.leaky}/chunks/N`, '$.content:ssn'],
      [`retrieval:document/${docs.contact}`, '$.description:email'],
    ].sort(),
  );
  // Nothing of the masked document, nothing of tenant B's.
  const text = JSON.stringify(findings);
  expect(text).not.toContain(docs.clean);
  expect(text).not.toContain(docs.other);
  const sarif = await api(t.alice!, `/scans/${scan.body.id}/sarif`);
  expect(sarif.status).toBe(200);
  for (const body of [text, JSON.stringify(sarif.body)])
    for (const value of [EMAIL, SSN, B_EMAIL]) expect(body).not.toContain(value);

  const again = await api(t.alice!, '/scans', { target_id: ids.all, pack_id: 'data-pii' });
  expect(again.body.summary).toMatchObject({ matches: 3, opened: 0 });
});

it("one document by id; another tenant's document is a 404 and a failed scan", async () => {
  const one = await api(t.alice!, '/targets', {
    name: 'onboarding',
    kind: 'data_asset',
    path: `retrieval:document/${docs.leaky}`,
  });
  const scan = await api(t.alice!, '/scans', { target_id: one.body.id, pack_id: 'data-pii' });
  expect(scan.body.summary).toMatchObject({ matches: 2 });

  const theirs = await api(t.alice!, '/targets', {
    name: 'theirs',
    kind: 'data_asset',
    path: `retrieval:document/${docs.other}`,
  });
  expect(theirs.status).toBe(201);
  const refused = await api(t.alice!, '/scans', { target_id: theirs.body.id, pack_id: 'data-pii' });
  expect(refused.status).toBe(404);
  const scans = await api(t.alice!, `/scans?target_id=${theirs.body.id}`);
  expect(scans.body.scans[0]).toMatchObject({ status: 'failed' });
  expect((await api(t.alice!, `/findings?target_id=${theirs.body.id}`)).body.findings).toEqual([]);
  // Tenant B cannot reach A's target either.
  expect((await api(t.bob!, '/scans', { target_id: ids.all, pack_id: 'data-pii' })).status).toBe(404);
});
