// Validation's run records on a real database (PGlite, or PostgreSQL with DATABASE_URL): a run's
// audit event (outbox) and its compliance notice (the tenant's backbone stream) commit together in
// the group's transaction, with no notice-outbox row for a relay to publish later; the bus gets
// each notice and one `events.event_published` per stream after the commit; a run the database
// refuses fails alone and leaves neither; a bus that fails does not fail committed runs.
import { randomUUID } from 'node:crypto';
import { COMPLIANCE_RULE_EXECUTION } from '../../../platform/contracts/compliance.events';
import { EVENTS_EVENT_PUBLISHED } from '../../../platform/contracts/events.events';
import type { Logger } from '../../../platform/logging/logger';
import { pendingNotice } from '../../../platform/outbox/notice.writer';
import type { AuditEventInput } from '../../../platform/outbox/outbox.writer';
import { runRecordWriter } from '../../../subgraphs/validation/run-record.writer';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const event = (tenantId: string, correlationId: string): AuditEventInput => ({
  tenantId,
  eventType: 'rule_execution',
  eventData: { rulepack_id: 'orders', result: 'passed' },
  userId: 'alice',
  correlationId,
  description: 'Rule pack orders passed',
  idempotencyKey: `key-${correlationId}`,
});
const notice = (tenantId: string, correlationId: string) =>
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
      tenant_id: tenantId,
      user_id: 'alice',
      correlation_id: correlationId,
      occurred_at: new Date().toISOString(),
    },
    { tenantId, subject: `rulepack/orders/runs/key-${correlationId}`, correlationId },
  );

function recordingBus(fail = false) {
  const published: { topic: string; payload: any }[] = [];
  return {
    published,
    publish: async (topic: string, payload: unknown) => {
      if (fail) throw new Error('bus down');
      published.push({ topic, payload });
    },
  };
}
const quietLogger = () => {
  const warnings: string[] = [];
  const warn = (_o: unknown, msg?: string) => void warnings.push(msg ?? '');
  return { warnings, warn: warn as Logger['warn'] };
};

async function rowsOf(tenantId: string, correlationId: string) {
  const events = await db.sql.query('SELECT event_type FROM outbox_events WHERE correlation_id = $1', [correlationId]);
  const stored = await db.sql.query<{ topic: string; subject: string; position: number }>(
    `SELECT topic, subject, position::float8 AS position FROM event_records
      WHERE tenant_id = $1 AND data->>'correlation_id' = $2`,
    [tenantId, correlationId],
  );
  const outboxed = await db.sql.query(`SELECT 1 FROM notice_outbox WHERE envelope->'data'->>'correlation_id' = $1`, [
    correlationId,
  ]);
  return { events: events.rows.length, notices: stored.rows, outboxed: outboxed.rows.length };
}

test("runs arriving together commit their audit events and their notices into the tenant's stream, then are published", async () => {
  const tenant = `t-${randomUUID()}`;
  const bus = recordingBus();
  const writer = runRecordWriter(db, bus, quietLogger(), 'validation');
  const ids = Array.from({ length: 10 }, (_, i) => `together-${tenant}-${i}`);
  await Promise.all(
    ids.map(async (id, i) => {
      // One without a notice (an operator-access record): the audit insert alone.
      await writer.append(event(tenant, id), i === 3 ? undefined : notice(tenant, id));
      const r = await rowsOf(tenant, id);
      expect(r.events).toBe(1);
      expect(r.outboxed).toBe(0);
      expect(r.notices.map((n) => [n.topic, n.subject])).toEqual(
        i === 3 ? [] : [[COMPLIANCE_RULE_EXECUTION.topic, `rulepack/orders/runs/key-${id}`]],
      );
    }),
  );
  // Positions 1..9 in the stream, each once.
  const positions = (await Promise.all(ids.map((id) => rowsOf(tenant, id)))).flatMap((r) =>
    r.notices.map((n) => n.position),
  );
  expect(positions.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // Each notice on the bus as the relay published it, and the stream's head announced.
  const live = bus.published.filter((p) => p.topic === COMPLIANCE_RULE_EXECUTION.topic);
  expect(live.map((p) => p.payload.data.correlation_id).sort()).toEqual(ids.filter((_, i) => i !== 3).sort());
  const heads = bus.published.filter((p) => p.topic === EVENTS_EVENT_PUBLISHED.topic).map((p) => p.payload);
  expect(heads.length).toBeGreaterThan(0);
  expect(heads.every((h) => h.tenant_id === tenant && h.topic === COMPLIANCE_RULE_EXECUTION.topic)).toBe(true);
  expect(Math.max(...heads.map((h) => h.position))).toBe(9);
});

test('a run the database refuses fails alone, leaving neither its audit event nor its notice', async () => {
  const tenant = `t-${randomUUID()}`;
  const bus = recordingBus();
  const writer = runRecordWriter(db, bus, quietLogger(), 'validation');
  const long = `${tenant}-${'x'.repeat(300)}`; // correlation_id is VARCHAR(255)
  const ids = [`ok-1-${tenant}`, `ok-2-${tenant}`, long, `ok-3-${tenant}`];
  const results = await Promise.allSettled(ids.map((id) => writer.append(event(tenant, id), notice(tenant, id))));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  for (const id of [ids[0]!, ids[1]!, ids[3]!]) {
    const r = await rowsOf(tenant, id);
    expect([r.events, r.notices.length]).toEqual([1, 1]);
  }
  const refused = await rowsOf(tenant, long);
  expect([refused.events, refused.notices.length]).toEqual([0, 0]);
  expect(bus.published.some((p) => p.payload?.data?.correlation_id === long)).toBe(false);
});

test('a notice the backbone refuses takes its audit event back with it (one transaction)', async () => {
  const tenant = `t-${randomUUID()}`;
  const writer = runRecordWriter(db, recordingBus(), quietLogger(), 'validation');
  const ok = `ok-${tenant}`;
  const refused = `refused-${tenant}`;
  // The audit event is fine; the notice names a tenant too long for the stream (VARCHAR(255)),
  // so its append fails after the audit insert of the same transaction succeeded.
  const results = await Promise.allSettled([
    writer.append(event(tenant, ok), notice(tenant, ok)),
    writer.append(event(tenant, refused), notice('y'.repeat(300), refused)),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
  expect((await rowsOf(tenant, ok)).events).toBe(1);
  expect((await rowsOf(tenant, refused)).events).toBe(0);
});

test("a tenant's webhook endpoint gets the run's notice queued in the same transaction", async () => {
  const tenant = `t-${randomUUID()}`;
  const endpoint = randomUUID();
  await db.sql.query(
    `INSERT INTO webhook_endpoints (id, tenant_id, url, topics, enabled, updated_at) VALUES ($1, $2, 'https://example.test/hook', $3, true, now())`,
    [endpoint, tenant, ['compliance.*']],
  );
  const writer = runRecordWriter(db, recordingBus(), quietLogger(), 'validation');
  const id = `hooked-${tenant}`;
  await writer.append(event(tenant, id), notice(tenant, id));
  const queued = await db.sql.query<{ event_type: string }>(
    'SELECT event_type FROM webhook_queue WHERE endpoint_id = $1',
    [endpoint],
  );
  expect(queued.rows).toEqual([{ event_type: COMPLIANCE_RULE_EXECUTION.topic }]);
});

test('a bus that fails after the commit does not fail the run: the notice is in the backbone, the failure logged', async () => {
  const tenant = `t-${randomUUID()}`;
  const logger = quietLogger();
  const writer = runRecordWriter(db, recordingBus(true), logger, 'validation');
  const id = `busless-${tenant}`;
  await writer.append(event(tenant, id), notice(tenant, id));
  const r = await rowsOf(tenant, id);
  expect([r.events, r.notices.length]).toEqual([1, 1]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(logger.warnings.length).toBeGreaterThan(0);
});
