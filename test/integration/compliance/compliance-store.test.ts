// The compliance stores and intake on a real database (PGlite, or PostgreSQL with DATABASE_URL):
// two tenants with the same framework key and control ids never see each other's frameworks,
// controls, evidence or freshness; the same event taken twice (also concurrently) is one item
// (the unique index, not a read-then-write); and with the ledger unreachable the evidence is kept
// with no ledger entry yet, and a redelivery still adds nothing; the periodic sweep appends it
// once the ledger answers, and stops cleanly. The intake appends before it writes: a write that
// fails after its append is redelivered onto the same entry and item.
import { WorkflowClient } from '../../../platform/clients/workflow.client';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../../../platform/auth/caller';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { COMPLIANCE_RULE_EXECUTION } from '../../../platform/contracts/compliance.events';
import { createLogger } from '../../../platform/logging/logger';
import { catalogStore } from '../../../subgraphs/compliance/catalog.store';
import { createReportLedger } from '../../../subgraphs/compliance/report-ledger';
import { createComplianceModule, type ComplianceModule } from '../../../subgraphs/compliance/compliance.module';
import type { ComplianceEventInput } from '../../../subgraphs/compliance/compliance.types';
import { createEvidenceLedger, evidenceIdempotencyKey } from '../../../subgraphs/compliance/evidence-ledger';
import { intakeItemId } from '../../../subgraphs/compliance/evidence.service';
import { evidenceStore } from '../../../subgraphs/compliance/evidence.store';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { freePort, until } from '../../support/waiting';
import { ledgerSweep } from '../../../subgraphs/compliance/evidence.sweep';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { loadLegalMinimums } from '../../../platform/retention/retention.types';
import { SubjectVault } from '../../../platform/vault/subject-vault';

jest.setTimeout(60_000);

const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown;
const A = 'store-a';
const B = 'store-b';

let db: TestDatabase;
let m: ComplianceModule;

const person = (username: string, tenantId: string, roles = ['user']): Caller => ({
  auth: { username, tenantId, roles, scopes: ['read', 'write'], isService: false },
  correlationId: randomUUID(),
});

function event(tenantId: string, id: string): ComplianceEventInput {
  return {
    id,
    tenantId,
    topic: COMPLIANCE_RULE_EXECUTION.topic,
    types: ['rule_execution', COMPLIANCE_RULE_EXECUTION.topic],
    rulePackId: 'kyc',
    occurredAt: new Date(),
    data: { rulepack_id: 'kyc', result: 'passed' },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  // Nothing listens on this port: the ledger is unreachable for the whole file.
  const ledger = createEvidenceLedger(
    `http://127.0.0.1:${await freePort()}`,
    new ServiceIdentity(TEST_JWT_SECRET, 'compliance'),
  );
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
    ledger,
    // Reports are not signed off here: no workflow service answers.
    workflow: new WorkflowClient('http://127.0.0.1:9'),
    reportLedger: createReportLedger(
      `http://127.0.0.1:${await freePort()}`,
      new ServiceIdentity(TEST_JWT_SECRET, 'compliance'),
    ),
    logger: createLogger('ERROR', 'compliance-test'),
  });
  await m.packs.ensureSigningKey();
  for (const [tenant, author, reviewer] of [
    [A, 'ann', 'rex'],
    [B, 'ben', 'roy'],
  ] as const) {
    await m.catalog.importCatalog(person(author, tenant), {
      framework: 'nist-800-53',
      document: fixture('nist-800-53-rev5-subset.catalog.json'),
    });
    await m.packs.submit(person(author, tenant), { pack: fixture('platform-events.mapping-pack.json') });
    await m.packs.certify(person(reviewer, tenant, ['reviewer']), {
      packId: 'platform-events-800-53',
      version: '1.0.0',
    });
  }
});
afterAll(async () => {
  await db?.drop();
});

describe('tenancy', () => {
  it("keeps two tenants' frameworks, evidence and freshness apart under the same keys", async () => {
    const a = await m.evidence.ingestComplianceEvent(event(A, 'same-id'));
    const b = await m.evidence.ingestComplianceEvent(event(B, 'same-id'));
    expect([a.created, b.created]).toEqual([true, true]);
    expect(a.itemId).not.toBe(b.itemId);

    expect(await evidenceStore.item(db.sql, B, a.itemId!)).toBeNull();
    const bItems = await evidenceStore.items(db.sql, B, { framework: 'nist-800-53', controlId: 'si-10', limit: 10 });
    expect(bItems.map((i) => i.id)).toEqual([b.itemId]);
    const [fresh] = await evidenceStore.freshness(db.sql, B, 'nist-800-53', 'si-10');
    expect(fresh).toMatchObject({ controlId: 'si-10', evidenceCount: 1 });

    expect(await catalogStore.framework(db.sql, 'store-c', 'nist-800-53')).toBeNull();
    expect(await catalogStore.controls(db.sql, 'store-c', 'nist-800-53')).toEqual([]);
    expect(await catalogStore.existing(db.sql, 'store-c', [{ framework: 'nist-800-53', controlId: 'ac-2' }])).toEqual(
      [],
    );
    await expect(m.evidence.evidence(person('ben', B), a.itemId!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      m.evidence.reviseEvidence(person('ben', B), { itemId: a.itemId!, content: { x: 1 } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('intake', () => {
  it('takes one event once, even when two deliveries race', async () => {
    const results = await Promise.all([
      m.evidence.ingestComplianceEvent(event(A, 'race-1')),
      m.evidence.ingestComplianceEvent(event(A, 'race-1')),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.itemId)).size).toBe(1);
    const { rows } = await db.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM compliance_evidence_items WHERE tenant_id = $1 AND event_id = 'race-1'",
      [A],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('keeps evidence whose ledger append failed, without an entry, and a redelivery adds nothing', async () => {
    const first = await m.evidence.ingestComplianceEvent(event(A, 'no-ledger'));
    const item = (await evidenceStore.item(db.sql, A, first.itemId!))!;
    expect(item.revisions).toHaveLength(1);
    expect(item.revisions[0]!.ledgerEntryId).toBeNull();
    expect((await evidenceStore.unrecorded(db.sql, A, 100)).map((u) => u.itemId)).toContain(first.itemId);
    const again = await m.evidence.ingestComplianceEvent(event(A, 'no-ledger'));
    expect(again).toMatchObject({ created: false, itemId: first.itemId });
    await expect(m.evidence.proof(person('ann', A), { itemId: first.itemId! })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('records an event no certified rule maps as taken, with no evidence', async () => {
    const unmapped = { ...event(A, 'unmapped'), types: ['something_else'] };
    expect(await m.evidence.ingestComplianceEvent(unmapped)).toEqual({ created: true, itemId: null, controls: [] });
    expect(await m.evidence.ingestComplianceEvent(unmapped)).toEqual({ created: false, itemId: null, controls: [] });
  });
});

describe('intake, ledger first', () => {
  it('lands every delivery of an event on one ledger entry and one item, and appends nothing for a redelivery', async () => {
    // A ledger that behaves as the real one does with idempotency keys: the same key, the same entry.
    const byKey = new Map<string, { entryId: string; chainHash: string }>();
    let appends = 0;
    let failWrite = true;
    const sql = {
      ...db.sql,
      query: ((text: string, params?: unknown[]) => {
        if (failWrite && text.includes('INSERT INTO compliance_intake')) {
          failWrite = false;
          return Promise.reject(new Error('connection lost'));
        }
        return db.sql.query(text, params);
      }) as typeof db.sql.query,
    };
    const mod = createComplianceModule({
      db: { ...db, sql },
      config: {
        requireAuth: true,
        evidenceTtlDays: 90,
        expiringDays: 14,
        ledgerUrl: 'unused',
        workflowUrl: 'unused',
        legalMinimums: loadLegalMinimums({}),
      },
      vault: new SubjectVault(randomBytes(32)),
      ledger: {
        async record(tenantId, e) {
          appends++;
          const key = `${tenantId} ${evidenceIdempotencyKey(e.itemId, e.revision)}`;
          if (!byKey.has(key)) byKey.set(key, { entryId: randomUUID(), chainHash: 'b'.repeat(64) });
          return byKey.get(key)!;
        },
        inclusionProof: () => Promise.reject(new Error('unused')),
      },
      workflow: new WorkflowClient('http://127.0.0.1:9'),
      reportLedger: createReportLedger('http://127.0.0.1:9', new ServiceIdentity(TEST_JWT_SECRET, 'compliance')),
      logger: createLogger('ERROR', 'compliance-test'),
    });

    // The append lands, the write fails: the caller sees the failure and nothing is in the store.
    await expect(mod.evidence.ingestComplianceEvent(event(A, 'ledger-first'))).rejects.toThrow('connection lost');
    expect(appends).toBe(1);
    expect(await evidenceStore.intakeItem(db.sql, A, 'ledger-first')).toBeUndefined();

    // The redelivery makes the item, under the same id, with the entry the first append made.
    const taken = await mod.evidence.ingestComplianceEvent(event(A, 'ledger-first'));
    expect(taken).toMatchObject({ created: true, itemId: intakeItemId({ tenantId: A, id: 'ledger-first' }) });
    expect(byKey.size).toBe(1);
    const item = (await evidenceStore.item(db.sql, A, taken.itemId!))!;
    expect(item.revisions.map((r) => r.ledgerEntryId)).toEqual([[...byKey.values()][0]!.entryId]);

    // Taken: a further delivery neither appends nor adds.
    expect(await mod.evidence.ingestComplianceEvent(event(A, 'ledger-first'))).toMatchObject({
      created: false,
      itemId: taken.itemId,
    });
    expect(appends).toBe(2);
    // The same event id in another tenant is another item, with its own entry.
    const other = await mod.evidence.ingestComplianceEvent(event(B, 'ledger-first'));
    expect(other.itemId).not.toBe(taken.itemId);
    expect(await evidenceStore.item(db.sql, A, other.itemId!)).toBeNull();
    expect(byKey.size).toBe(2);
  });
});

describe('the periodic ledger sweep', () => {
  it('appends, on its timer, every revision the unreachable ledger left without an entry, then stops cleanly', async () => {
    const left = await m.evidence.ingestComplianceEvent(event(B, 'swept-later'));
    expect((await evidenceStore.unrecorded(db.sql, B, 100)).map((u) => u.itemId)).toContain(left.itemId);
    // The ledger is back: a module over the same database whose ledger answers.
    const entries = new Map<string, { tenantId: string; itemId: string; revision: number }>();
    const back = createComplianceModule({
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
      ledger: {
        async record(tenantId, e) {
          const entryId = randomUUID();
          entries.set(entryId, { tenantId, itemId: e.itemId, revision: e.revision });
          return { entryId, chainHash: 'a'.repeat(64) };
        },
        inclusionProof: () => Promise.reject(new Error('unused')),
      },
      workflow: new WorkflowClient('http://127.0.0.1:9'),
      reportLedger: createReportLedger('http://127.0.0.1:9', new ServiceIdentity(TEST_JWT_SECRET, 'compliance')),
      logger: createLogger('ERROR', 'compliance-test'),
    });
    const pending = async () =>
      (await evidenceStore.unrecorded(db.sql, A, 1000)).length +
      (await evidenceStore.unrecorded(db.sql, B, 1000)).length;
    expect(await pending()).toBeGreaterThan(0);
    expect(await evidenceStore.tenantsWithUnrecorded(db.sql, 100)).toEqual(expect.arrayContaining([A, B]));
    const sweep = ledgerSweep(db.sql, evidenceStore, back.evidence, {
      intervalMs: 20,
      logger: createLogger('ERROR', 'compliance-test'),
    });
    sweep.start();
    try {
      await until(async () => (await pending()) === 0, 'every revision swept into the ledger');
    } finally {
      await sweep.stop();
    }
    // Each revision went to its own tenant's ledger, and its entry is on the revision.
    const item = (await evidenceStore.item(db.sql, B, left.itemId!))!;
    const entry = entries.get(item.revisions[0]!.ledgerEntryId!);
    expect(entry).toEqual({ tenantId: B, itemId: left.itemId, revision: 1 });
    expect(await evidenceStore.tenantsWithUnrecorded(db.sql, 100)).toEqual([]);
    // Stopped: new unrecorded evidence stays unrecorded (no timer left running).
    const after = await m.evidence.ingestComplianceEvent(event(B, 'after-stop'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await evidenceStore.unrecorded(db.sql, B, 100)).map((u) => u.itemId)).toEqual([after.itemId]);
  });
});
