// Notices enter the events backbone in the relay's claim transaction (one path, issue 26): each
// notice is stored once in its (tenant, topic) stream with its CloudEvent id, whatever the relay
// retries; the platform topic is seeded by the relay when no events service has; and after the
// commit each new event announces itself with `events.event_published` (the live feeds' wake-up).
import { EVENTS_EVENT_PUBLISHED } from '../../../platform/contracts/events.events';
import { RULEPACK_DEPRECATED } from '../../../platform/contracts/rulepack.events';
import { WORKFLOW_CHANGED } from '../../../platform/contracts/workflow.events';
import { createEventsStore } from '../../../platform/events/backbone/backbone.store';
import { noticeEvent } from '../../../platform/events/backbone/notice-append';
import { startNoticeRelay, type NoticeRelay } from '../../../platform/outbox/notice-relay';
import { pendingNotice, sqlInsertNotices, type PendingNotice } from '../../../platform/outbox/notice.writer';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';

jest.setTimeout(120_000);

const quiet = { warn: () => {}, info: () => {} };
let db: TestDatabase;
const relays: NoticeRelay[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
// Each test's relay stops with it: a relay left polling would take the next test's rows.
afterEach(async () => {
  for (const r of relays.splice(0)) await r.stop();
});
afterAll(async () => {
  await db?.drop();
});

const records = async (tenant: string, topic: string) =>
  (
    await db.sql.query<{ id: string; position: string; subject: string }>(
      `SELECT id, position::text AS position, subject FROM event_records WHERE tenant_id = $1 AND topic = $2 ORDER BY position`,
      [tenant, topic],
    )
  ).rows;

function changed(tenant: string, workflowId: string, seq: number): PendingNotice {
  return pendingNotice(
    'backbone-test',
    WORKFLOW_CHANGED,
    { tenant_id: tenant, workflow_id: workflowId, version: seq + 1, seq, event: 'step.completed' },
    { tenantId: tenant, subject: workflowId },
  );
}

describe('notices into the backbone', () => {
  it('stores every notice once, in outbox order per stream, even when the bus fails and the relay retries', async () => {
    // No events service ran here: the relay seeds the platform topics itself.
    await db.sql.query(`DELETE FROM event_topics WHERE owner = 'platform'`);
    const notices: PendingNotice[] = [];
    for (let i = 0; i < 6; i++) notices.push(changed('t-bb-1', `wf-${i % 2}`, i), changed('t-bb-2', 'wf-x', i));
    await db.sql.transaction((q) => sqlInsertNotices(q, notices));
    const wakes: unknown[] = [];
    const failFirst = new Set([notices[4]!.envelope.id]);
    const bus = {
      async publish(topic: string, payload: unknown) {
        if (topic === EVENTS_EVENT_PUBLISHED.topic) {
          wakes.push(payload);
          return;
        }
        if (failFirst.delete((payload as { id: string }).id)) throw new Error('bus unavailable');
      },
    };
    const relay = startNoticeRelay({
      db,
      bus,
      logger: quiet,
      services: ['backbone-test'],
      pollMs: 20,
      backoff: { baseMs: 20, maxMs: 50 },
    });
    relays.push(relay);
    await until(
      async () =>
        Number(
          (
            await db.sql.query<{ n: string }>(
              `SELECT count(*)::text AS n FROM notice_outbox WHERE service = 'backbone-test' AND published_at IS NULL`,
            )
          ).rows[0]!.n,
        ) === 0,
      'every notice relayed',
    );
    const first = await records('t-bb-1', WORKFLOW_CHANGED.topic);
    const second = await records('t-bb-2', WORKFLOW_CHANGED.topic);
    // The retried notice (bus failure) was appended twice and stored once.
    expect(first.map((r) => r.id)).toEqual(
      notices.filter((n) => n.envelope.tenantid === 't-bb-1').map((n) => n.envelope.id),
    );
    expect(second.map((r) => r.id)).toEqual(
      notices.filter((n) => n.envelope.tenantid === 't-bb-2').map((n) => n.envelope.id),
    );
    expect(first.map((r) => Number(r.position))).toEqual([1, 2, 3, 4, 5, 6]);
    // One pass stored them: each stream was announced once, after the commit, with its highest
    // new position (a wake-up: readers read the stream after their own position).
    expect(wakes).toHaveLength(2);
    expect(wakes).toContainEqual({ tenant_id: 't-bb-1', topic: WORKFLOW_CHANGED.topic, position: 6 });
    expect(wakes).toContainEqual({ tenant_id: 't-bb-2', topic: WORKFLOW_CHANGED.topic, position: 6 });
    // Readable by name through the store, as the events service reads it.
    const topic = await createEventsStore(db.sql).topic('t-bb-1', WORKFLOW_CHANGED.topic);
    expect(topic).toMatchObject({ platform: true, version: WORKFLOW_CHANGED.version });
  });

  it('a notice whose append committed before (a relay killed after it, before the mark) is not stored twice', async () => {
    const n = pendingNotice(
      'backbone-test',
      RULEPACK_DEPRECATED,
      { pack_id: 'kyc', version: '1.0.0', owner_tenant: 't-bb-3', replacement: null },
      { tenantId: 't-bb-3', subject: 'kyc@1.0.0' },
    );
    await db.sql.transaction((q) => sqlInsertNotices(q, [n]));
    // As if an earlier pass had appended it and died before marking the row published.
    const store = createEventsStore(db.sql);
    expect((await store.publish('t-bb-3', noticeEvent(n.envelope), Number.POSITIVE_INFINITY)).kind).toBe('stored');
    const wakes: unknown[] = [];
    const relay = startNoticeRelay({
      db,
      bus: {
        async publish(topic, payload) {
          if (topic === EVENTS_EVENT_PUBLISHED.topic) wakes.push(payload);
        },
      },
      logger: quiet,
      services: ['backbone-test'],
      pollMs: 20,
    });
    relays.push(relay);
    await relay.flush();
    expect((await records('t-bb-3', RULEPACK_DEPRECATED.topic)).map((r) => r.id)).toEqual([n.envelope.id]);
    // A duplicate wakes nobody: it was announced when it was stored.
    expect(wakes).toEqual([]);
  });

  it('a relay with the backbone off leaves the streams alone', async () => {
    await db.sql.transaction((q) => sqlInsertNotices(q, [changed('t-bb-4', 'wf-off', 0)]));
    const relay = startNoticeRelay({
      db,
      bus: { publish: async () => {} },
      logger: quiet,
      services: ['backbone-test'],
      backbone: false,
    });
    relays.push(relay);
    await relay.flush();
    expect(await records('t-bb-4', WORKFLOW_CHANGED.topic)).toEqual([]);
  });
});
