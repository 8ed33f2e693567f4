// Compliance reports on a real database (PGlite, or PostgreSQL with DATABASE_URL) with the ledger
// unreachable: nothing is ever half-applied. A generation whose checkpoint cannot be taken leaves
// no report, no verdict and no evidence row behind (503); a sign-off whose ledger append fails
// puts the report back to pending review with no reviewer (503) and a later sign-off can succeed
// once the ledger answers; a snapshot copies only the period's evidence, an item's newest revision
// in it, per control; a generation a crash cut between snapshot and checkpoint is discarded by the
// sweep (every tenant's, only once it is older than the timeout), and a generation still running
// when swept answers 503 and leaves nothing.
import { randomBytes } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../../../platform/auth/caller';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { UnavailableError } from '../../../platform/errors/domain-errors';
import { createLogger } from '../../../platform/logging/logger';
import { createComplianceModule, type ComplianceModule } from '../../../subgraphs/compliance/compliance.module';
import { createEvidenceLedger } from '../../../subgraphs/compliance/evidence-ledger';
import { evidenceStore } from '../../../subgraphs/compliance/evidence.store';
import type { SignOffWorkflow } from '../../../subgraphs/compliance/report-signoff.service';
import { createReportLedger, type ReportLedger } from '../../../subgraphs/compliance/report-ledger';
import { reportStore } from '../../../subgraphs/compliance/report.store';
import { reportSweep } from '../../../subgraphs/compliance/report.sweep';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { freePort } from '../../support/waiting';
import { loadLegalMinimums } from '../../../platform/retention/retention.types';
import { SubjectVault } from '../../../platform/vault/subject-vault';

jest.setTimeout(60_000);

const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown;
const T = 'report-store';

let db: TestDatabase;
let m: ComplianceModule;
/** The report ledger's sign-off append: the real client to a port nothing listens on, until a test swaps it. */
let record: ReportLedger['record'];
/** The report ledger's checkpoint: the real client to a port nothing listens on, until a test swaps it. */
let checkpoint: ReportLedger['checkpoint'];

const person = (username: string, roles = ['user']): Caller => ({
  auth: { username, tenantId: T, roles, scopes: ['read', 'write'], isService: false },
  correlationId: randomUUID(),
});

async function count(table: string): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [
    T,
  ]);
  return Number(rows[0]!.n);
}

/** Starts one approval task per report and answers a decision the way the workflow's /approve does. */
const signOffWorkflow: SignOffWorkflow = {
  execute: () =>
    Promise.resolve({
      status: 'pending_approval',
      workflow_id: randomUUID(),
      approval_task_id: randomUUID(),
      requires_human_approval: true,
      correlation_id: 'c',
      message: 'pending',
      pack_id: 'builtin-compliance',
      pack_version: '1.0.0',
      pack_source: 'builtin',
    }),
  decide: () => Promise.reject(new Error('decided through applyDecision in this suite')),
  status: () => Promise.reject(new Error('unused')),
};

beforeAll(async () => {
  db = await createTestDatabase();
  const identity = new ServiceIdentity(TEST_JWT_SECRET, 'compliance');
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const unreachable = createReportLedger(nowhere, identity);
  record = unreachable.record;
  checkpoint = unreachable.checkpoint;
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
    ledger: createEvidenceLedger(nowhere, identity),
    reportLedger: {
      ...unreachable,
      record: (tenantId, entry) => record(tenantId, entry),
      checkpoint: (tenantId, correlationId) => checkpoint(tenantId, correlationId),
    },
    // The workflow's approval step as its client answers (the real one: e2e report-rest).
    workflow: signOffWorkflow,
    logger: createLogger('ERROR', 'compliance-report-test'),
  });
  await m.catalog.importCatalog(person('ann'), {
    framework: 'nist-800-53',
    document: fixture('nist-800-53-rev5-subset.catalog.json'),
  });
});

afterAll(async () => {
  await db?.close();
});

it('snapshots the period: newest revision in it, per control; evidence outside the period is left out', async () => {
  const ann = person('ann');
  const inQ3 = await m.evidence.addEvidence(ann, {
    controls: [
      { framework: 'nist-800-53', controlId: 'ac-2' },
      { framework: 'nist-800-53', controlId: 'au-2' },
    ],
    content: { v: 1 },
    collectedAt: new Date('2026-07-10T00:00:00Z'),
  });
  await m.evidence.reviseEvidence(ann, {
    itemId: inQ3.id,
    content: { v: 2 },
    collectedAt: new Date('2026-08-10T00:00:00Z'),
  });
  await m.evidence.reviseEvidence(ann, {
    itemId: inQ3.id,
    content: { v: 3 },
    collectedAt: new Date('2026-10-10T00:00:00Z'),
  });
  await m.evidence.addEvidence(ann, {
    controls: [{ framework: 'nist-800-53', controlId: 'si-4' }],
    content: { before: true },
    collectedAt: new Date('2026-06-30T23:59:59Z'),
  });
  // The ledger never answered: the evidence has no entry, so the report takes no checkpoint.
  const report = await m.reports.generate(ann, { framework: 'nist-800-53', period: '2026-Q3' });
  expect(report).toMatchObject({
    status: 'generated',
    checkpoint: null,
    summary: { evidence_items: 1, evidence_links: 2, unrecorded: 2, satisfied: 2 },
  });
  const page = await m.reports.evidencePage(ann, report.id, { proofs: true });
  expect(page.items.map((i) => [i.controlId, i.revision])).toEqual([
    ['ac-2', 2],
    ['au-2', 2],
  ]);
  expect(page.items[0]!.proof).toEqual({ error: 'not recorded in the ledger when the report was generated' });
});

it('leaves nothing behind when the checkpoint cannot be taken', async () => {
  const ann = person('ann');
  const item = await m.evidence.addEvidence(ann, {
    controls: [{ framework: 'nist-800-53', controlId: 'ia-2' }],
    content: { mfa: true },
    collectedAt: new Date('2026-09-01T00:00:00Z'),
  });
  // As if the ledger had recorded it earlier: now a checkpoint is needed, and the ledger is down.
  await evidenceStore.setLedgerEntry(db.sql, T, item.id, 1, randomUUID(), 'a'.repeat(64));
  const before = await Promise.all(
    ['compliance_reports', 'compliance_report_controls', 'compliance_report_evidence'].map(count),
  );
  await expect(m.reports.generate(ann, { framework: 'nist-800-53', period: '2026-Q3' })).rejects.toBeInstanceOf(
    UnavailableError,
  );
  const after = await Promise.all(
    ['compliance_reports', 'compliance_report_controls', 'compliance_report_evidence'].map(count),
  );
  expect(after).toEqual(before);
});

it('puts a report back to pending review when the ledger does not record its sign-off', async () => {
  const ann = person('ann');
  const report = await m.reports.generate(ann, {
    framework: 'nist-800-53',
    period: { start: '2026-01-01', end: '2026-02-01' },
  });
  const submitted = await m.signOff.submit(ann, report.id);
  const decision = { tenantId: T, workflowId: submitted.workflowId!, decision: 'approve' as const, notes: 'ok' };
  await expect(m.signOff.applyDecision({ ...decision, reviewer: 'rex' })).rejects.toBeInstanceOf(UnavailableError);
  expect(await m.reports.report(ann, report.id)).toMatchObject({
    status: 'pending_review',
    reviewedBy: null,
    reviewedAt: null,
    ledgerEntryId: null,
  });
  // The ledger answers again (a stand-in for its append only: the rest of the path is real).
  const entryId = randomUUID();
  record = () => Promise.resolve({ entryId, chainHash: 'b'.repeat(64) });
  // The generator named as the reviewer (only a service account can do that in the workflow): ignored.
  expect(await m.signOff.applyDecision({ ...decision, reviewer: 'ann' })).toMatchObject({ status: 'pending_review' });
  const signed = await m.signOff.applyDecision({ ...decision, reviewer: 'rex' });
  expect(signed).toMatchObject({ status: 'signed_off', reviewedBy: 'rex', reviewNotes: 'ok', ledgerEntryId: entryId });
});

describe('a generation a crash cut between snapshot and checkpoint', () => {
  const MINUTE = 60_000;
  const rowsOf = async (id: string) => {
    const n = async (table: string, column: string) =>
      Number(
        (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1::uuid`, [id]))
          .rows[0]!.n,
      );
    return [
      await n('compliance_reports', 'id'),
      await n('compliance_report_controls', 'report_id'),
      await n('compliance_report_evidence', 'report_id'),
    ];
  };
  /** What a generation has committed when its process dies before the checkpoint: the snapshot only. */
  const crashedSnapshot = (tenantId: string, generatedAt: Date) => {
    const id = randomUUID();
    return db.sql
      .transaction((tx) =>
        reportStore.snapshot(
          tx,
          tenantId,
          {
            id,
            framework: 'nist-800-53',
            reportType: 'periodic',
            periodStart: new Date('2026-07-01T00:00:00Z'),
            periodEnd: new Date('2026-10-01T00:00:00Z'),
            periodLabel: '2026-Q3',
            generatedBy: 'ann',
            generatedAt,
          },
          new Date('2026-10-01T00:00:00Z'),
          14,
        ),
      )
      .then(() => id);
  };
  const logger = { warn: jest.fn() };

  it('is never served, and is discarded by the sweep once older than the timeout, whatever its tenant', async () => {
    const now = new Date();
    const old = await crashedSnapshot(T, new Date(now.getTime() - 20 * MINUTE));
    const otherTenant = await crashedSnapshot('report-store-b', new Date(now.getTime() - 30 * MINUTE));
    const recent = await crashedSnapshot(T, new Date(now.getTime() - 2 * MINUTE));
    expect((await rowsOf(old))[1]).toBeGreaterThan(0);
    // Never served while it waits.
    await expect(m.reports.report(person('ann'), old)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await m.reports.list(person('ann'), {})).reports.map((r) => r.id)).not.toContain(old);
    const finished = (await m.reports.list(person('ann'), {})).reports.map((r) => [r.id, r.status]);

    const sweep = reportSweep(db.sql, reportStore, { intervalMs: 0, timeoutMs: 15 * MINUTE, logger, now: () => now });
    const discarded = await sweep.runOnce();
    expect(discarded.map((r) => r.id).sort()).toEqual([old, otherTenant].sort());
    expect(await rowsOf(old)).toEqual([0, 0, 0]);
    expect(await rowsOf(otherTenant)).toEqual([0, 0, 0]);
    // Within the timeout it may still be running: left alone. Finished reports are never touched.
    expect((await rowsOf(recent))[0]).toBe(1);
    expect((await m.reports.list(person('ann'), {})).reports.map((r) => [r.id, r.status])).toEqual(finished);
    expect(logger.warn).toHaveBeenCalledWith(
      { reports: expect.arrayContaining([`${T}/${old}`]) },
      expect.stringContaining('discarded'),
    );
    // A second pass finds nothing more.
    expect(await sweep.runOnce()).toEqual([]);
    await db.sql.transaction((tx) => reportStore.discard(tx, T, recent));
  });

  it('a generation still running when swept answers 503 and leaves nothing behind', async () => {
    const ann = person('ann');
    // Recorded evidence in the period (the earlier test's ia-2 item): the generation needs a checkpoint.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    checkpoint = async (tenantId) => {
      asked();
      await held;
      return {
        format: 'checkpoint/v1',
        id: randomUUID(),
        tenant_id: tenantId,
        tree_size: 10,
        root_hash: 'c'.repeat(64),
        timestamp: new Date().toISOString(),
        key_id: 'k',
        signature: 's',
      };
    };
    const before = await Promise.all(
      ['compliance_reports', 'compliance_report_controls', 'compliance_report_evidence'].map(count),
    );
    const generating = m.reports.generate(ann, { framework: 'nist-800-53', period: '2026-Q3' });
    generating.catch(() => undefined);
    await waiting;
    // Swept as if the timeout had passed while it waited for the checkpoint.
    const later = () => new Date(Date.now() + 60 * MINUTE);
    const swept = await reportSweep(db.sql, reportStore, {
      intervalMs: 0,
      timeoutMs: 15 * MINUTE,
      logger,
      now: later,
    }).runOnce();
    expect(swept).toHaveLength(1);
    release();
    await expect(generating).rejects.toBeInstanceOf(UnavailableError);
    const after = await Promise.all(
      ['compliance_reports', 'compliance_report_controls', 'compliance_report_evidence'].map(count),
    );
    expect(after).toEqual(before);
    checkpoint = () => Promise.reject(new Error('unreachable'));
  });
});
