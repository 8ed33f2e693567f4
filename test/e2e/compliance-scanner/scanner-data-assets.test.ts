// Data-asset targets: an ingestion batch read through the typed IngestionClient (an ingestion
// stand-in serving the batch-records route as docs/ingestion.md gives it), as the scanner for the
// target's tenant, sampled for unmasked PII with platform/redaction's detectors. Findings name the
// batch, the record's offset and the field, never the value (REST, SARIF, `scanner.finding`);
// masked values pass; a batch the ingestion service does not know is a 404 and a failed scan;
// another tenant's target is 404.
import Fastify, { type FastifyInstance } from 'fastify';
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call } from '../workflow/workflow.support';

jest.setTimeout(180_000);

const A = 'asset-a';
const B = 'asset-b';
const EMAIL = 'jane.doe@example.com';
const SSN = '123-45-6789';
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const t: Record<string, string> = {};
let h: Harness;
let url: string;
let ingestion: FastifyInstance;
const reads: { batch: string; tokenTenant?: string; subject?: string }[] = [];
const notices: any[] = [];

const RECORDS = [
  { offset: 0, data: { name: 'Jane', contact: `write to ${EMAIL}`, amount: 10 } },
  { offset: 1, data: { customer: { ssn: SSN } } },
  { offset: 2, data: { ssn: '***-**-6789', email: 'j***@example.com' } },
];

const PACK = {
  metadata: { pack_id: 'data-pii', version: '1.0.0', name: 'Data PII' },
  rules: [
    {
      id: 'data.unmasked-pii',
      severity: 'high',
      description: 'A record of a data asset holds PII in the clear.',
      remediation: 'Mask or tokenize the field at ingestion (a pipeline redaction step).',
      controls: ['sc-28', 'pt-2'],
      input: 'pii',
    },
  ],
};

const api = (token: string, p: string, body?: unknown) => call(`${url}/api/scanner${p}`, { token, body });

beforeAll(async () => {
  ingestion = Fastify();
  ingestion.get<{ Params: { id: string }; Querystring: { after?: string; limit?: string } }>(
    '/api/ingestion/batches/:id/records',
    async (request, reply) => {
      const bearer = request.headers.authorization?.replace(/^Bearer /, '');
      const claims = bearer ? await tokens.authenticate(bearer).catch(() => undefined) : undefined;
      reads.push({ batch: request.params.id, tokenTenant: claims?.tenantId, subject: claims?.username });
      if (request.params.id !== 'b-1' || claims?.tenantId !== A)
        return reply.code(404).send({ detail: 'Batch not found' });
      const after = Number(request.query.after ?? -1);
      const records = RECORDS.filter((r) => r.offset > after).map((r) => ({
        batch_id: 'b-1',
        dataset: 'customers',
        source: 'upload',
        ...r,
      }));
      return { records, next_after: null };
    },
  );
  await ingestion.listen({ port: 0, host: '127.0.0.1' });
  const ingestionUrl = `http://127.0.0.1:${(ingestion.server.address() as { port: number }).port}`;
  h = await startServices([defineComplianceScannerService()], {
    REQUIRE_AUTH: 'true',
    INGESTION_URL: ingestionUrl,
    WORKFLOW_URL: 'http://127.0.0.1:9',
    SCANNER_SWEEP_SECONDS: '3600',
  });
  url = h.services['compliance-scanner']!.url;
  await h.bus.subscribe('scanner.finding', (m: any) => void notices.push(m.data ?? m));
  const user = (username: string, tenantId: string, roles: string[]) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.bob = await user('bob', B, ['admin']);
  expect((await api(t.alice!, '/packs', { pack: PACK })).status).toBe(201);
  expect((await api(t.rita!, '/packs/data-pii/versions/1.0.0/certify', {})).status).toBe(200);
});

afterAll(async () => {
  await h?.close();
  await ingestion?.close();
});

const ids: Record<string, string> = {};

it('registers an ingestion batch as a data asset, refusing other references', async () => {
  const bad = await api(t.alice!, '/targets', { name: 'x', kind: 'data_asset', path: '/etc/passwd' });
  expect(bad.status).toBe(422);
  const missing = await api(t.alice!, '/targets', { name: 'y', kind: 'data_asset' });
  expect(missing.status).toBe(422);
  const created = await api(t.alice!, '/targets', {
    name: 'customers',
    kind: 'data_asset',
    path: 'ingestion:batch/b-1',
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ kind: 'data_asset', path: 'ingestion:batch/b-1' });
  ids.target = created.body.id;
});

it('finds unmasked PII by asset, record and field, never its value; masked values pass', async () => {
  const scan = await api(t.alice!, '/scans', { target_id: ids.target, pack_id: 'data-pii' });
  expect([scan.status, scan.body.status]).toEqual([201, 'completed']);
  expect(scan.body.summary.opened).toBe(2);
  expect(reads.at(-1)).toMatchObject({ batch: 'b-1', tokenTenant: A });
  const findings = await api(t.alice!, `/findings?scan_id=${scan.body.id}`);
  const where = findings.body.findings.map((f: any) => [f.rule_id, f.path, f.detail, f.status]).sort();
  expect(where).toEqual([
    ['data.unmasked-pii', 'ingestion:batch/b-1/records/0', '$.contact:email', 'open'],
    ['data.unmasked-pii', 'ingestion:batch/b-1/records/1', '$.customer.ssn:ssn', 'open'],
  ]);
  const sarif = await call(`${url}/api/scanner/scans/${scan.body.id}/sarif`, { token: t.alice });
  expect(sarif.status).toBe(200);
  await until(() => notices.filter((n) => n.scan_id === scan.body.id).length === 2, 'the scanner.finding notices');
  const sent = notices.filter((n) => n.scan_id === scan.body.id);
  expect(sent.map((n) => n.target_kind)).toEqual(['data', 'data']);
  expect(sent.flatMap((n) => n.controls)).toContain('sc-28');
  for (const text of [JSON.stringify(findings.body), JSON.stringify(sarif.body), JSON.stringify(sent)])
    for (const value of [EMAIL, SSN]) expect(text).not.toContain(value);

  // Scanned again unchanged: the same fingerprints, nothing new.
  const again = await api(t.alice!, '/scans', { target_id: ids.target, pack_id: 'data-pii' });
  expect(again.body.summary).toMatchObject({ matches: 2, opened: 0 });
});

it('a batch the ingestion service does not know is a 404 and a failed scan; another tenant sees nothing', async () => {
  const target = await api(t.alice!, '/targets', { name: 'gone', kind: 'data_asset', path: 'ingestion:batch/b-404' });
  const scan = await api(t.alice!, '/scans', { target_id: target.body.id, pack_id: 'data-pii' });
  expect(scan.status).toBe(404);
  const scans = await api(t.alice!, `/scans?target_id=${target.body.id}`);
  expect(scans.body.scans[0]).toMatchObject({ status: 'failed' });
  expect((await api(t.bob!, `/targets/${ids.target}`)).status).toBe(404);
  expect((await api(t.bob!, '/scans', { target_id: ids.target, pack_id: 'data-pii' })).status).toBe(404);
  expect((await api(t.bob!, '/findings')).body.findings).toEqual([]);
});
