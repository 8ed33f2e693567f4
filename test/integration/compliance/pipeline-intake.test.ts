// The intake of the data pipeline's topics (platform/contracts/pipeline.events.ts) over the events
// backbone, into the real evidence service (PGlite, or PostgreSQL with DATABASE_URL): a
// reconciliation DataFlow finished becomes evidence for the controls a certified mapping pack
// maps `reconciliation` (or `reconciliation.failed`) to; a scanner finding becomes evidence for
// the control ids it carries, in every framework of the tenant that has them (the NIST catalog
// and the SOC 2 mapping), ids no framework has are left out; a redelivery adds nothing; another
// tenant's stream feeds only that tenant. The producers are other services; the payloads here are
// what their contracts say.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../../../platform/auth/caller';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { WorkflowClient } from '../../../platform/clients/workflow.client';
import {
  DATAFLOW_RECONCILIATION_COMPLETED,
  SCANNER_FINDING,
  type DataflowReconciliationCompleted,
  type ScannerFinding,
} from '../../../platform/contracts/pipeline.events';
import { createEventsStore, type EventsStore } from '../../../platform/events/backbone/backbone.store';
import { seedPlatformTopics } from '../../../platform/events/backbone/platform-topics';
import { createLogger } from '../../../platform/logging/logger';
import { loadLegalMinimums } from '../../../platform/retention/retention.types';
import { SubjectVault } from '../../../platform/vault/subject-vault';
import {
  consumeIntake,
  reconciliationEvent,
  scannerFindingEvent,
} from '../../../subgraphs/compliance/compliance.intake';
import { createComplianceModule, type ComplianceModule } from '../../../subgraphs/compliance/compliance.module';
import { createEvidenceLedger } from '../../../subgraphs/compliance/evidence-ledger';
import { createReportLedger } from '../../../subgraphs/compliance/report-ledger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';

jest.setTimeout(120_000);

const A = 'pipe-a';
const B = 'pipe-b';
const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown;
const person = (username: string, tenantId: string, roles = ['user']): Caller => ({
  auth: { username, tenantId, roles, scopes: ['read', 'write'], isService: false },
  correlationId: randomUUID(),
});

let db: TestDatabase;
let store: EventsStore;
let m: ComplianceModule;
let stop: (() => Promise<void>) | undefined;

const reconciliation = (tenantId: string, result: 'passed' | 'failed'): DataflowReconciliationCompleted => ({
  tenant_id: tenantId,
  run_id: randomUUID(),
  pack_id: 'gtas-reconciliation',
  pack_version: '1.0.0',
  reconciliation: 'gtas_vs_ledger',
  result,
  matched: 98,
  unmatched_left: result === 'failed' ? 2 : 0,
  unmatched_right: 0,
  breaks: result === 'failed' ? 2 : 0,
  result_sha256: 'c'.repeat(64),
  at: new Date().toISOString(),
});

const finding = (tenantId: string, controls: string[]): ScannerFinding => ({
  tenant_id: tenantId,
  finding_id: randomUUID(),
  scan_id: randomUUID(),
  pack_id: 'secrets-scan',
  pack_version: '1.0.0',
  rule_id: 'no-plaintext-keys',
  severity: 'high',
  status: 'open',
  target_kind: 'repository',
  location: 'services/x.ts:12',
  fingerprint: 'd'.repeat(64),
  controls,
  at: new Date().toISOString(),
});

async function publish(tenantId: string, topic: string, data: unknown, id = randomUUID()) {
  const out = await store.publish(
    tenantId,
    {
      id,
      tenantId,
      topic,
      source: '/services/test',
      type: topic,
      time: new Date().toISOString(),
      subject: null,
      traceparent: null,
      data,
      size: 300,
    },
    1e12,
  );
  if (out.kind === 'over-quota') throw new Error('over quota');
  return id;
}

/** The evidence item the intake made of an event, once it exists. */
async function itemOf(tenantId: string, eventId: string) {
  const { rows } = await db.sql.query<{ item_id: string | null }>(
    `SELECT item_id::text AS item_id FROM compliance_intake WHERE tenant_id = $1 AND event_id = $2`,
    [tenantId, eventId],
  );
  return rows[0];
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = createEventsStore(db.sql);
  await seedPlatformTopics(db.sql);
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const identity = new ServiceIdentity(TEST_JWT_SECRET, 'compliance');
  m = createComplianceModule({
    db,
    config: {
      requireAuth: true,
      evidenceTtlDays: 90,
      expiringDays: 14,
      ledgerUrl: 'unused',
      workflowUrl: 'unused',
      legalMinimums: loadLegalMinimums({}),
    },
    vault: new SubjectVault(randomBytes(32)),
    // The ledger is unreachable: evidence waits for its entry; mapping is what this file checks.
    ledger: createEvidenceLedger(nowhere, identity),
    reportLedger: createReportLedger(nowhere, identity),
    workflow: new WorkflowClient(nowhere),
    logger: createLogger('ERROR', 'pipeline-intake-test'),
  });
  await m.packs.ensureSigningKey();
  for (const tenant of [A, B]) {
    await m.catalog.importCatalog(person('ann', tenant), {
      framework: 'nist-800-53',
      document: fixture('nist-800-53-rev5-subset.catalog.json'),
    });
    await m.catalog.importMapping(person('ann', tenant), {
      framework: 'soc2',
      document: fixture('soc2-to-nist-800-53.mapping.json'),
    });
    await m.packs.submit(person('ann', tenant), {
      pack: {
        metadata: { pack_id: 'pipeline-800-53', version: '1.0.0', name: 'Pipeline events' },
        mappings: [
          { event_type: 'reconciliation', controls: [{ framework: 'nist-800-53', control_id: 'ca-7' }] },
          { event_type: 'reconciliation.failed', controls: [{ framework: 'nist-800-53', control_id: 'si-4' }] },
        ],
      },
    });
    await m.packs.certify(person('rex', tenant, ['reviewer']), { packId: 'pipeline-800-53', version: '1.0.0' });
  }
});

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

afterAll(async () => {
  await db?.drop();
});

const controlsOf = async (tenantId: string, itemId: string) =>
  (await m.evidence.evidence(person('ann', tenantId), itemId)).controls
    .map((c) => `${c.framework}:${c.controlId}`)
    .sort();

it('takes reconciliations and scanner findings from the backbone as evidence mapped to controls', async () => {
  const passed = await publish(A, DATAFLOW_RECONCILIATION_COMPLETED.topic, reconciliation(A, 'passed'));
  const failed = await publish(A, DATAFLOW_RECONCILIATION_COMPLETED.topic, reconciliation(A, 'failed'));
  const found = await publish(A, SCANNER_FINDING.topic, finding(A, ['ac-2', 'CC6.1', 'zz-99']));
  const other = await publish(B, SCANNER_FINDING.topic, finding(B, ['sc-28']));
  stop = await consumeIntake(db, (e) => m.evidence.ingestComplianceEvent(e), {
    logger: { warn: () => {}, info: () => {} },
    pollMs: 50,
  });
  for (const [tenant, id] of [
    [A, passed],
    [A, failed],
    [A, found],
    [B, other],
  ] as const)
    await until(async () => (await itemOf(tenant, id)) !== undefined, `event ${id} taken`);

  expect(await controlsOf(A, (await itemOf(A, passed))!.item_id!)).toEqual(['nist-800-53:ca-7']);
  expect(await controlsOf(A, (await itemOf(A, failed))!.item_id!)).toEqual(['nist-800-53:ca-7', 'nist-800-53:si-4']);
  // The finding's own ids, in each framework that has them; `zz-99` is in none.
  expect(await controlsOf(A, (await itemOf(A, found))!.item_id!)).toEqual(['nist-800-53:ac-2', 'soc2:CC6.1']);
  expect(await controlsOf(B, (await itemOf(B, other))!.item_id!)).toEqual(['nist-800-53:sc-28']);
  // Tenant B's evidence is not A's.
  await expect(m.evidence.evidence(person('ann', A), (await itemOf(B, other))!.item_id!)).rejects.toMatchObject({
    code: 'NOT_FOUND',
  });
  const item = await m.evidence.evidence(person('ann', A), (await itemOf(A, found))!.item_id!);
  expect(item.source).toBe('event:scanner.finding');
});

it('a redelivered pipeline event adds nothing', async () => {
  const payload = finding(A, ['au-2']);
  const first = await m.evidence.ingestComplianceEvent(scannerFindingEvent(payload, { id: 'finding-1' }));
  const again = await m.evidence.ingestComplianceEvent(scannerFindingEvent(payload, { id: 'finding-1' }));
  expect(first).toMatchObject({ created: true, controls: [{ framework: 'nist-800-53', controlId: 'au-2' }] });
  expect(again).toMatchObject({ created: false, itemId: first.itemId });
  const rec = reconciliation(A, 'passed');
  const r1 = await m.evidence.ingestComplianceEvent(reconciliationEvent(rec, { id: 'rec-1' }));
  const r2 = await m.evidence.ingestComplianceEvent(reconciliationEvent(rec, { id: 'rec-1' }));
  expect(r2).toMatchObject({ created: false, itemId: r1.itemId });
});

it('a scanner finding naming no control any framework has is taken, as no evidence', async () => {
  const r = await m.evidence.ingestComplianceEvent(scannerFindingEvent(finding(A, ['zz-1']), { id: 'finding-none' }));
  expect(r).toEqual({ created: true, itemId: null, controls: [] });
});
