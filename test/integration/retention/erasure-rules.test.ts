// The erasure and hold rules of the compliance domain on a real database (docs/compliance.md,
// "Erasure"): a hold naming no subject covers every subject and blocks every erasure; a hold on
// another subject does not; a refused erasure changes nothing (keys, holds, records, outbox); the
// outbox names subjects by reference only; a platform operator acts in a tenant only by naming it.
import { WorkflowClient } from '../../../platform/clients/workflow.client';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Caller } from '../../../platform/auth/caller';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { ConflictError, NotFoundError } from '../../../platform/errors/domain-errors';
import { createLogger } from '../../../platform/logging/logger';
import { loadLegalMinimums } from '../../../platform/retention/retention.types';
import { ERASED, SubjectVault } from '../../../platform/vault/subject-vault';
import { createComplianceModule, type ComplianceModule } from '../../../subgraphs/compliance/compliance.module';
import { createEvidenceLedger } from '../../../subgraphs/compliance/evidence-ledger';
import { createReportLedger } from '../../../subgraphs/compliance/report-ledger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/service-harness';

const A = 'erase-a';
const B = 'erase-b';
const vault = new SubjectVault(randomBytes(32));
let db: TestDatabase;
let m: ComplianceModule;

const admin = (tenantId: string): Caller => ({
  auth: { username: `admin-${tenantId}`, tenantId, roles: ['admin'], scopes: ['read', 'write'], isService: false },
  correlationId: randomUUID(),
});
const operator: Caller = {
  auth: {
    username: 'ops',
    tenantId: 'platform',
    roles: ['platform-admin'],
    scopes: ['read', 'write'],
    isService: false,
  },
  correlationId: randomUUID(),
};

async function snapshot() {
  const q = async (sql: string) => (await db.sql.query(sql)).rows;
  return {
    keys: await q(`SELECT id, wrapped_key, destroyed_at FROM subject_keys ORDER BY id`),
    holds: await q(`SELECT id, subject_id, released_at FROM legal_holds ORDER BY id`),
    erasures: await q(`SELECT id FROM erasure_requests`),
    outbox: await q(`SELECT id FROM outbox_events`),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
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
    ledger: createEvidenceLedger('http://127.0.0.1:9', new ServiceIdentity(TEST_JWT_SECRET, 'compliance')),
    // Reports are not signed off here: no workflow service answers.
    workflow: new WorkflowClient('http://127.0.0.1:9'),
    reportLedger: createReportLedger('http://127.0.0.1:9', new ServiceIdentity(TEST_JWT_SECRET, 'compliance')),
    logger: createLogger('ERROR', 'erasure-test'),
    vault,
  });
  for (const subject of ['eve', 'frank']) await vault.seal(db.sql, A, subject, `${subject}@example.com`);
});
afterAll(async () => {
  await db?.close();
});

it('a hold naming no subject (here: one record type) blocks every erasure, and the refusal changes nothing', async () => {
  const hold = await m.retention.placeHold(admin(A), { recordType: 'rag_conversation', reason: 'regulator inquiry' });
  const before = await snapshot();
  await expect(m.erasure.erase(admin(A), { subjectId: 'eve' })).rejects.toBeInstanceOf(ConflictError);
  expect(await snapshot()).toEqual(before);
  await m.retention.releaseHold(admin(A), hold.id);
});

it('a hold on another subject does not block; the outbox names the subject by reference only', async () => {
  const hold = await m.retention.placeHold(admin(A), { subjectId: 'frank', reason: 'litigation' });
  const sealed = await vault.seal(db.sql, A, 'eve', 'Eve Adams');
  const record = await m.erasure.erase(admin(A), { subjectId: 'eve', reason: 'request 7' });
  expect(record).toMatchObject({ subjectRef: vault.subjectRef(A, 'eve'), keysDestroyed: 1, reason: 'request 7' });
  expect(await vault.open(db.sql, A, sealed)).toBe(ERASED);
  const outbox = await db.sql.query<{ event_type: string; data: unknown }>(
    `SELECT event_type, event_data::text AS data FROM outbox_events WHERE tenant_id = $1 ORDER BY id`,
    [A],
  );
  const text = JSON.stringify(outbox.rows);
  expect(text).toContain(vault.subjectRef(A, 'eve'));
  expect(text).not.toContain('eve@');
  expect(text).not.toMatch(/"eve"|\\"eve\\"/);
  // frank is held: his erasure is refused.
  await expect(m.erasure.erase(admin(A), { subjectId: 'frank' })).rejects.toBeInstanceOf(ConflictError);
  await m.retention.releaseHold(admin(A), hold.id);
});

it('another tenant cannot hold or erase the subject, nor see the records; an operator acts by naming the tenant', async () => {
  await expect(m.erasure.erase(admin(B), { subjectId: 'frank' })).rejects.toBeInstanceOf(NotFoundError);
  await expect(m.retention.placeHold(admin(B), { subjectId: 'frank', reason: 'x' })).rejects.toBeInstanceOf(
    NotFoundError,
  );
  expect(await m.erasure.erasures(admin(B))).toEqual([]);
  expect(await m.retention.holds(admin(B))).toEqual([]);
  const record = await m.erasure.erase(operator, { subjectId: 'frank', tenantId: A });
  expect(record.keysDestroyed).toBe(1);
  expect((await m.erasure.erasures(admin(A))).map((e) => e.subjectRef)).toEqual(
    expect.arrayContaining([vault.subjectRef(A, 'eve'), vault.subjectRef(A, 'frank')]),
  );
  // The released hold on frank keeps only his reference.
  const holds = await m.retention.holds(admin(A));
  expect(holds.find((h) => h.subjectRef === vault.subjectRef(A, 'frank'))).toMatchObject({ subjectId: null });
});
