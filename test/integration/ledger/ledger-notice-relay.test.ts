// The ledger's live feed from committed rows (subgraphs/ledger/ledger-notice.relay.ts), on a real
// database (PGlite, or PostgreSQL with DATABASE_URL): events committed while nothing published
// them (a process killed between commit and publish) are announced by the next relay; a failing
// bus is retried until it accepts, with the mark held back meanwhile; two relays on one database
// never both publish a pass; and a subscriber that gets duplicate notices delivers each event once.
import { createTestDatabase, type TestDatabase } from '../../support/database';
import type { EventBus } from '../../../platform/events/event-bus';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import { openDatabase, type Database } from '../../../platform/db/database';
import type { SqlExecutor } from '../../../platform/db/sql';
import {
  NOTICE_RELAY_LOCK,
  relayNotices,
  startNoticeRelay,
  type NoticeRelay,
} from '../../../subgraphs/ledger/ledger-notice.relay';
import { createLedgerModule } from '../../../subgraphs/ledger/ledger.module';
import { prepareAppend } from '../../../subgraphs/ledger/ledger.service';
import { LEDGER_EVENT_APPENDED } from '../../../platform/contracts/ledger.events';
import { appendedEvents, type AppendedNotice } from '../../../subgraphs/ledger/ledger.subscriptions';
import { until } from '../../support/waiting';

const EVENT_APPENDED_TOPIC = LEDGER_EVENT_APPENDED.topic;

jest.setTimeout(60_000);

const quiet = { warn: () => {}, info: () => {} };
let db: TestDatabase;
const relays: NoticeRelay[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const r of relays) await r.stop();
  await db?.drop();
});

/** Appends `n` events to `tenant` and commits them, with no relay running (as a process killed right after its commits). */
async function commitUnannounced(tenant: string, n: number): Promise<void> {
  const { committer } = createLedgerModule(db, () => {});
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      committer.append(prepareAppend({ tenantId: tenant, eventType: 'relay_test', eventData: { i } })),
    ),
  );
  await committer.drain();
}

function recorder(bus: EventBus) {
  const seen: AppendedNotice[] = [];
  const ready = bus.subscribe(EVENT_APPENDED_TOPIC, (p) => void seen.push(p as AppendedNotice));
  return {
    seen,
    ready,
    of: (tenant: string) =>
      seen
        .filter((n) => n.tenant_id === tenant)
        .map((n) => n.seq)
        .sort((a, b) => a - b),
  };
}

it('announces events committed before any relay ran (a kill between commit and publish)', async () => {
  await commitUnannounced('relay-killed', 12);
  const bus = createMemoryEventBus();
  const rec = recorder(bus);
  await rec.ready;
  const relay = startNoticeRelay({ sql: db.sql, bus, logger: quiet, pollMs: 50 });
  relays.push(relay);
  await relay.flush();
  // One notice for the pass, naming its latest event: subscribers read the chain up to there.
  await until(() => rec.of('relay-killed').length === 1, 'the notice');
  expect(rec.of('relay-killed')).toEqual([12]);
  // Once announced, not again: the mark moved.
  await relay.flush();
  await relay.stop();
  expect(rec.of('relay-killed')).toEqual([12]);
  const mark = await db.sql.query<{ seq: string }>(
    `SELECT published_seq::text AS seq FROM ledger_notice_marks WHERE tenant_id = 'relay-killed'`,
  );
  expect(mark.rows[0]?.seq).toBe('12');
});

it('retries a failing publish until the bus accepts, never advancing the mark past unpublished events', async () => {
  await commitUnannounced('relay-retry', 5);
  const inner = createMemoryEventBus();
  const rec = recorder(inner);
  await rec.ready;
  let failures = 3;
  let attempts = 0;
  const flaky: EventBus = {
    ...inner,
    async publish(topic, payload) {
      if ((payload as AppendedNotice).tenant_id === 'relay-retry') {
        attempts++;
        if (failures > 0) {
          failures--;
          throw new Error('NATS unavailable');
        }
      }
      return inner.publish(topic, payload);
    },
  };
  const warnings: unknown[] = [];
  const relay = startNoticeRelay({
    sql: db.sql,
    bus: flaky,
    logger: { warn: (o: unknown) => void warnings.push(o), info: () => {} },
    pollMs: 50,
    backoffMs: 10,
    maxBackoffMs: 40,
  });
  relays.push(relay);
  await until(() => rec.of('relay-retry').length >= 1, 'the notice after the failures');
  await relay.stop();
  expect(new Set(rec.of('relay-retry'))).toEqual(new Set([5]));
  expect(warnings.length).toBeGreaterThanOrEqual(1);
  expect(attempts).toBeGreaterThan(3);
  const mark = await db.sql.query<{ seq: string }>(
    `SELECT published_seq::text AS seq FROM ledger_notice_marks WHERE tenant_id = 'relay-retry'`,
  );
  expect(mark.rows[0]?.seq).toBe('5');
});

it('announces each event type of a tenant once per pass, with its latest event (issue 35)', async () => {
  const { committer } = createLedgerModule(db, () => {});
  const types = ['type_a', 'type_b', 'type_a', 'type_a', 'type_b', 'type_c'];
  for (const eventType of types) {
    await committer.append(prepareAppend({ tenantId: 'relay-types', eventType, eventData: {} }));
  }
  const bus = createMemoryEventBus();
  const rec = recorder(bus);
  await rec.ready;
  const pass = await relayNotices(db.sql, bus, 1000);
  expect(pass).toMatchObject({ full: false, locked: true });
  expect(pass.published).toBeGreaterThanOrEqual(6);
  await until(() => rec.of('relay-types').length >= 3, 'three notices');
  const notices = rec.seen
    .filter((n) => n.tenant_id === 'relay-types')
    .map((n) => [n.event_type, n.seq])
    .sort();
  expect(notices).toEqual([
    ['type_a', 4],
    ['type_b', 5],
    ['type_c', 6],
  ]);
});

it('lets one relay at a time publish a pass', async () => {
  if (db.kind !== 'postgres') return; // PGlite is one connection: there is no second relay to exclude.
  await commitUnannounced('relay-lock', 3);
  const other: Database = await openDatabase(db.config, { migrate: false });
  try {
    const bus = createMemoryEventBus();
    let locked: Awaited<ReturnType<typeof relayNotices>> | undefined;
    // The first pass holds the lock while the second tries.
    await db.sql.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [NOTICE_RELAY_LOCK.toString()]);
      locked = await relayNotices(other.sql, bus, 100);
    });
    expect(locked).toEqual({ published: 0, full: false, locked: false });
    const free = await relayNotices(other.sql, bus, 100);
    expect(free).toMatchObject({ locked: true });
  } finally {
    await other.close();
  }
});

it('delivers each event once to a subscriber whatever duplicate notices arrive', async () => {
  const bus = createMemoryEventBus();
  const { service, committer } = createLedgerModule(db, () => {});
  const feed = await appendedEvents(bus, service, { tenantId: 'relay-dup', eventType: undefined, afterSeq: 0 });
  for (let i = 0; i < 3; i++)
    await committer.append(prepareAppend({ tenantId: 'relay-dup', eventType: 'dup', eventData: { i } }));
  const got: number[] = [];
  const reading = (async () => {
    for (let i = 0; i < 3; i++) got.push((await feed.next()).value!.seq);
  })();
  // Every notice three times over, out of order, as at-least-once relays from two processes may.
  for (const seq of [3, 1, 2, 3, 1, 2, 2, 3, 1])
    await bus.publish(EVENT_APPENDED_TOPIC, { id: 'x', tenant_id: 'relay-dup', seq, event_type: 'dup' });
  await reading;
  expect(got).toEqual([1, 2, 3]);
  // More duplicates, then a new event: the next item is that event, nothing repeated before it.
  for (const seq of [3, 2])
    await bus.publish(EVENT_APPENDED_TOPIC, { id: 'x', tenant_id: 'relay-dup', seq, event_type: 'dup' });
  await committer.append(prepareAppend({ tenantId: 'relay-dup', eventType: 'dup', eventData: { i: 3 } }));
  await bus.publish(EVENT_APPENDED_TOPIC, { id: 'x', tenant_id: 'relay-dup', seq: 4, event_type: 'dup' });
  expect((await feed.next()).value!.seq).toBe(4);
  await feed.return!();
});

it('polls idle with one read and no transaction, and still announces what another process committed', async () => {
  const texts: string[] = [];
  const sql: SqlExecutor = {
    query: (text, params, options) => {
      texts.push(text);
      return db.sql.query(text, params, options);
    },
    exec: (text) => db.sql.exec(text),
    transaction: (work) => {
      texts.push('BEGIN');
      return db.sql.transaction(work);
    },
  };
  const bus = createMemoryEventBus();
  const rec = recorder(bus);
  await rec.ready;
  const relay = startNoticeRelay({ sql, bus, logger: quiet, pollMs: 20 });
  relays.push(relay);
  await relay.flush();
  texts.length = 0;
  await new Promise((r) => setTimeout(r, 300));
  // Polls happened, each one read; none opened a pass: nothing was pending.
  expect(texts.filter((t) => t.includes('ledger_notice_marks m')).length).toBeGreaterThan(2);
  expect(texts.filter((t) => t === 'BEGIN')).toEqual([]);
  await commitUnannounced('relay-idle', 3);
  await until(() => rec.of('relay-idle').includes(3), 'the poll to announce the commits');
  expect(texts.filter((t) => t === 'BEGIN').length).toBeGreaterThan(0);
});
