// The grouped audit-and-notice writer (validation's runs) on a real database (PGlite, or
// PostgreSQL with DATABASE_URL): appends that arrive together share ONE statement, each append's
// audit event and notice are both committed when it resolves, and an append the database refuses
// fails alone and leaves neither its event nor its notice.
import { COMPLIANCE_RULE_EXECUTION } from '../../../platform/contracts/compliance.events';
import type { SqlQuery } from '../../../platform/db/sql';
import { groupedAuditNoticeWriter, pendingNotice } from '../../../platform/outbox/notice.writer';
import type { AuditEventInput } from '../../../platform/outbox/outbox.writer';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const event = (correlationId: string): AuditEventInput => ({
  tenantId: 't-run',
  eventType: 'rule_execution',
  eventData: { rulepack_id: 'orders', result: 'passed', note: 'quotes " and \\ survive' },
  userId: 'alice',
  correlationId,
  description: 'Rule pack orders passed',
  idempotencyKey: `key-${correlationId}`,
});
const notice = (correlationId: string) =>
  pendingNotice(
    'validation',
    COMPLIANCE_RULE_EXECUTION,
    {
      rulepack_id: 'orders',
      rules_executed: 3,
      violations: 0,
      result: 'passed',
      input_sha256: 'a'.repeat(64),
      pack_sha256: 'b'.repeat(64),
      pack_source: 'registry',
      rule_pack_version: '1.0.0',
      validation_type: 'standard',
      payload_format: 'json',
      strict_mode: false,
      records: 1,
      tenant_id: 't-run',
      user_id: 'alice',
      correlation_id: correlationId,
      occurred_at: new Date().toISOString(),
    },
    { tenantId: 't-run', subject: 'rulepack/orders', correlationId },
  );

async function rowsOf(correlationId: string) {
  const events = await db.sql.query<{ service: string; event_data: Record<string, unknown>; user_id: string }>(
    'SELECT service, event_data, user_id FROM outbox_events WHERE correlation_id = $1',
    [correlationId],
  );
  const notices = await db.sql.query<{ topic: string; subject: string }>(
    `SELECT topic, subject FROM notice_outbox WHERE envelope->'data'->>'correlation_id' = $1`,
    [correlationId],
  );
  return { events: events.rows, notices: notices.rows };
}

test('appends arriving together share one statement; each is committed, event and notice, when it resolves', async () => {
  const statements: string[] = [];
  const prepared = new Map<string, Set<string>>();
  const counting: SqlQuery = {
    query: (text, params, options) => {
      statements.push(text);
      if (options?.prepareAs) prepared.set(options.prepareAs, (prepared.get(options.prepareAs) ?? new Set()).add(text));
      return db.sql.query(text, params, options);
    },
    exec: (text) => db.sql.exec(text),
  };
  const writer = groupedAuditNoticeWriter(counting, 'validation');
  const ids = Array.from({ length: 12 }, (_, i) => `run-${i}`);
  await Promise.all(
    ids.map(async (id, i) => {
      // One without a notice: the statement is then the audit insert alone.
      await writer.append(event(id), i === 5 ? undefined : notice(id));
      const r = await rowsOf(id);
      expect(r.events).toEqual([
        {
          service: 'validation',
          user_id: 'alice',
          event_data: { rulepack_id: 'orders', result: 'passed', note: 'quotes " and \\ survive' },
        },
      ]);
      expect(r.notices).toEqual(
        i === 5 ? [] : [{ topic: COMPLIANCE_RULE_EXECUTION.topic, subject: 'rulepack/orders' }],
      );
    }),
  );
  expect(statements.length).toBeLessThan(ids.length); // grouped: the first alone, the rest together
  expect(statements.every((s) => !/^\s*(BEGIN|COMMIT)/i.test(s))).toBe(true);
  // Every statement is prepared, and a name always stands for one text (else PostgreSQL refuses it).
  expect([...prepared.values()].reduce((n, texts) => n + texts.size, 0)).toBe(prepared.size);
  expect(prepared.size).toBe(new Set(statements).size);
});

test('groups of any size and both forms reuse their prepared statements on the same connections', async () => {
  const writer = groupedAuditNoticeWriter(db.sql, 'validation', { maxInFlight: 2 });
  for (let round = 0; round < 8; round++) {
    const ids = Array.from({ length: 1 + round * 3 }, (_, i) => `prepared-${round}-${i}`);
    await Promise.all(ids.map((id, i) => writer.append(event(id), i % 4 === 1 ? undefined : notice(id))));
    for (const [i, id] of ids.entries()) {
      const r = await rowsOf(id);
      expect([r.events.length, r.notices.length]).toEqual([1, i % 4 === 1 ? 0 : 1]);
    }
  }
});

test('an append the database refuses fails alone, leaving neither its event nor its notice', async () => {
  const writer = groupedAuditNoticeWriter(db.sql, 'validation', { maxInFlight: 2 });
  const long = 'x'.repeat(300); // correlation_id is VARCHAR(255)
  const results = await Promise.allSettled(
    ['ok-1', 'ok-2', long, 'ok-3'].map((id) => writer.append(event(id), notice(id))),
  );
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  for (const id of ['ok-1', 'ok-2', 'ok-3']) {
    const r = await rowsOf(id);
    expect([r.events.length, r.notices.length]).toEqual([1, 1]);
  }
  const refused = await rowsOf(long);
  expect([refused.events.length, refused.notices.length]).toEqual([0, 0]);
});
