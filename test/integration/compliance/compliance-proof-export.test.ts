// A report's whole proof export (ReportService.proofExport) through the real ledger service over
// HTTP: the compliance side's real ReportLedger client (createReportLedger) streams every proof
// from POST /v1/ledger/proofs/inclusion/stream (the batch route is not used: it throws here), each
// proof accepted by the standalone verifier against the ledger's JWKS; an item whose entry is
// another tenant's (as if its row were tampered) gets "no such entry", never that tenant's proof;
// another tenant's caller cannot export the report; an unreachable ledger is a 503, not a 500.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../../../platform/auth/caller';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { NotFoundError, UnavailableError } from '../../../platform/errors/domain-errors';
import { createLogger } from '../../../platform/logging/logger';
import { loadLegalMinimums } from '../../../platform/retention/retention.types';
import { SubjectVault } from '../../../platform/vault/subject-vault';
import { ledgerService } from '../../../services/ledger';
import { createComplianceModule, type ComplianceModule } from '../../../subgraphs/compliance/compliance.module';
import { createEvidenceLedger } from '../../../subgraphs/compliance/evidence-ledger';
import { createReportLedger } from '../../../subgraphs/compliance/report-ledger';
import type { SignOffWorkflow } from '../../../subgraphs/compliance/report-signoff.service';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the verifier is a CommonJS script auditors run as is
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(120_000);

const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown;
const T = 'proof-export-t';
const OTHER = 'proof-export-other';

let h: Harness;
let db: TestDatabase;
let m: ComplianceModule;
let ledgerUrl: string;
let streamed = 0;
/** Where the export's stream goes: the real ledger, or (one test) a port nothing listens on. */
let streamVia: ReturnType<typeof createReportLedger>;

const person = (username: string, tenantId = T): Caller => ({
  auth: { username, tenantId, roles: ['user'], scopes: ['read', 'write'], isService: false },
  correlationId: randomUUID(),
});

const noWorkflow: SignOffWorkflow = {
  execute: () => Promise.reject(new Error('no sign-off in this suite')),
  decide: () => Promise.reject(new Error('no sign-off in this suite')),
  status: () => Promise.reject(new Error('no sign-off in this suite')),
};

beforeAll(async () => {
  h = await startServices([ledgerService], {
    LEDGER_CHECKPOINT_INTERVAL_MS: '0',
    LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE: '1000',
  });
  ledgerUrl = h.services.ledger!.url;
  db = await createTestDatabase();
  const identity = new ServiceIdentity(TEST_JWT_SECRET, 'compliance');
  const real = createReportLedger(ledgerUrl, identity);
  streamVia = real;
  m = createComplianceModule({
    db,
    config: {
      requireAuth: true,
      evidenceTtlDays: 90,
      expiringDays: 14,
      ledgerUrl,
      workflowUrl: 'unused',
      legalMinimums: loadLegalMinimums({}),
    },
    vault: new SubjectVault(randomBytes(32)),
    ledger: createEvidenceLedger(ledgerUrl, identity),
    reportLedger: {
      ...real,
      // The export must take the stream route; a page's batch route here would hide a fallback.
      inclusionProofs: () => Promise.reject(new Error('the whole export must not use the batch route')),
      inclusionProofStream: (tenantId, entryIds, treeSize) => {
        streamed++;
        return streamVia.inclusionProofStream!(tenantId, entryIds, treeSize);
      },
    },
    workflow: noWorkflow,
    logger: createLogger('ERROR', 'compliance-proof-export-test'),
  });
  for (const tenant of [T, OTHER])
    await m.catalog.importCatalog(person('ann', tenant), {
      framework: 'nist-800-53',
      document: fixture('nist-800-53-rev5-subset.catalog.json'),
    });
});

afterAll(async () => {
  await db?.close();
  await h?.close();
});

it('exports every item with a proof the verifier accepts, through the ledger stream route', async () => {
  const ann = person('ann');
  const items = [];
  for (let i = 0; i < 12; i++)
    items.push(
      await m.evidence.addEvidence(ann, {
        controls: [{ framework: 'nist-800-53', controlId: i % 2 ? 'ac-2' : 'au-2' }],
        content: { i },
        collectedAt: new Date(Date.UTC(2026, 6, 2 + i)),
      }),
    );
  // Another tenant's evidence, whose ledger entry one of T's rows is then made to name.
  const foreign = await m.evidence.addEvidence(person('olga', OTHER), {
    controls: [{ framework: 'nist-800-53', controlId: 'ac-2' }],
    content: { foreign: true },
    collectedAt: new Date(Date.UTC(2026, 6, 3)),
  });
  const foreignEntry = foreign.revisions[0]!.ledgerEntryId!;
  expect(foreignEntry).toEqual(expect.any(String));
  const tampered = items[5]!.id;
  await db.sql.query(
    'UPDATE compliance_evidence_revisions SET ledger_entry_id = $3 WHERE tenant_id = $1 AND item_id = $2',
    [T, tampered, foreignEntry],
  );

  const report = await m.reports.generate(ann, { framework: 'nist-800-53', period: '2026-Q3' });
  expect(report.checkpoint?.tree_size).toBe(12);
  const jwks = await (await fetch(`${ledgerUrl}/v1/ledger/jwks`)).json();
  const results = new Map<string, any>();
  for await (const batch of m.reports.proofExport(ann, report.id))
    for (const r of batch) results.set(r.itemId, r.result);

  expect(streamed).toBe(1);
  expect(results.size).toBe(12);
  expect(results.get(tampered)).toEqual({ error: "the ledger holds no such entry in the report's checkpoint" });
  let verified = 0;
  for (const item of items) {
    if (item.id === tampered) continue;
    const { proof } = results.get(item.id);
    expect(proof.tenant_id).toBe(T);
    expect(proof.tree_size).toBe(12);
    expect(proof.entry.id).toBe(item.revisions[0]!.ledgerEntryId);
    expect(verifier.verify(proof, jwks)).toContain(`seq ${proof.entry.seq}`);
    verified++;
  }
  expect(verified).toBe(11);

  // Another tenant's caller cannot export T's report.
  await expect(
    (async () => {
      for await (const _ of m.reports.proofExport(person('olga', OTHER), report.id)) void _;
    })(),
  ).rejects.toBeInstanceOf(NotFoundError);

  // The ledger unreachable: the export fails as a 503 (UnavailableError), not a 500.
  streamVia = createReportLedger(
    `http://127.0.0.1:${await freePort()}`,
    new ServiceIdentity(TEST_JWT_SECRET, 'compliance'),
  );
  try {
    await expect(
      (async () => {
        for await (const _ of m.reports.proofExport(ann, report.id)) void _;
      })(),
    ).rejects.toBeInstanceOf(UnavailableError);
  } finally {
    streamVia = createReportLedger(ledgerUrl, new ServiceIdentity(TEST_JWT_SECRET, 'compliance'));
  }
});
