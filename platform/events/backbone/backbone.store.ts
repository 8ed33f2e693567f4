// The only events module that talks to the database: hand-written SQL through the kernel's
// executor (PGlite and node-postgres alike). Publishing locks its stream's head row, so positions
// of a (tenant, topic) commit in order and a reader never sees a later one before an earlier one.
// Pulling leases messages with `FOR UPDATE SKIP LOCKED`, so consumers of one group in any number of
// processes never get the same message at once. Every function that reads a tenant's rows takes
// the tenant id as a required argument.
import type { AuditEventInput } from '../../outbox/outbox.writer';
import { sqlOutboxWriter } from '../../outbox/outbox.writer';
import type { SqlExecutor, SqlQuery } from '../../db/sql';
import type { DeadLetter, EventRecord, LeasedMessage, NewEvent, Subscription, Topic } from './backbone.types';
import { PLATFORM_OWNER } from './backbone.types';

/** Longest wait between two deliveries of a nacked message, whatever its attempt count. */
export const MAX_BACKOFF_MS = 6 * 3600 * 1000;
/**
 * The key order is kept by: the subject within the tenant (the deliveries are per tenant already).
 * An event without a subject asks for no order, so it is its own key and never waits for another.
 */
export const ORDER_KEY = `CASE WHEN r.subject IS NULL THEN 'id:' || r.id ELSE 'subject:' || r.subject END`;
/** Events copied into a group's deliveries per pull: bounds the work of one pull. */
const MATERIALISE_BATCH = 1000;

export const EVENT_COLUMNS = `r.id, r.tenant_id, r.topic, r.position::float8 AS position, r.source, r.type,
  (extract(epoch FROM r.time) * 1000)::float8 AS time_ms, r.subject, r.traceparent, r.data::text AS data`;

export interface EventRow {
  id: string;
  tenant_id: string;
  topic: string;
  position: number;
  source: string;
  type: string;
  time_ms: number;
  subject: string | null;
  traceparent: string | null;
  data: string;
}

export function toEvent(r: EventRow): EventRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    topic: r.topic,
    position: Number(r.position),
    source: r.source,
    type: r.type,
    specversion: '1.0',
    time: new Date(Number(r.time_ms)).toISOString(),
    subject: r.subject,
    traceparent: r.traceparent,
    data: JSON.parse(r.data) as unknown,
  };
}

interface TopicRow {
  owner: string;
  name: string;
  version: number;
  schema: string;
  description: string;
}

function toTopic(r: TopicRow): Topic {
  return {
    owner: r.owner,
    name: r.name,
    version: Number(r.version),
    schema: JSON.parse(r.schema) as Record<string, unknown>,
    description: r.description,
    platform: r.owner === PLATFORM_OWNER,
  };
}

const TOPIC_COLUMNS = 'owner, name, version, schema::text AS schema, description';

interface SubscriptionRow {
  tenant_id: string;
  name: string;
  topic: string;
  position: number;
  max_deliveries: number;
  ack_timeout_ms: number;
  backoff_ms: number;
}

const SUBSCRIPTION_COLUMNS = `tenant_id, name, topic, position::float8 AS position, max_deliveries, ack_timeout_ms, backoff_ms`;

function toSubscription(r: SubscriptionRow): Subscription {
  return {
    tenantId: r.tenant_id,
    name: r.name,
    topic: r.topic,
    position: Number(r.position),
    maxDeliveries: Number(r.max_deliveries),
    ackTimeoutMs: Number(r.ack_timeout_ms),
    backoffMs: Number(r.backoff_ms),
  };
}

export type PublishOutcome =
  | { kind: 'stored'; event: EventRecord }
  /** An event with this id was stored before: the publish is a retry. */
  | { kind: 'duplicate'; event: EventRecord }
  | { kind: 'over-quota'; storedBytes: number };

export interface EventsStore {
  /** Seeds or updates a platform topic (a newer version replaces an older one). */
  upsertPlatformTopic(topic: Omit<Topic, 'owner' | 'platform'>): Promise<void>;
  /** A tenant's own topic; false when the name is taken. */
  createTopic(tenantId: string, topic: Omit<Topic, 'owner' | 'platform'>): Promise<boolean>;
  /** The topic a tenant sees under this name: its own, or the platform's. */
  topic(tenantId: string, name: string): Promise<Topic | null>;
  topics(tenantId: string): Promise<Topic[]>;
  publish(tenantId: string, event: NewEvent, quotaBytes: number): Promise<PublishOutcome>;
  /**
   * Appends events to one stream in the given order, outside the tenant's quota (platform notices:
   * the producer's change has committed), in one statement; resolves with the events newly
   * stored, by position (an id stored before is a retry and left out). The hooks run on the same
   * transaction for the stored ones.
   */
  appendMany(tenantId: string, topic: string, events: readonly NewEvent[]): Promise<EventRecord[]>;
  eventsAfter(tenantId: string, topic: string, afterPosition: number, limit: number): Promise<EventRecord[]>;
  headPosition(tenantId: string, topic: string): Promise<number>;
  /** The position just before the first event at or after `time` (the head when there is none). */
  positionBefore(tenantId: string, topic: string, time: string): Promise<number>;
  createSubscription(subscription: Subscription): Promise<boolean>;
  subscription(tenantId: string, name: string): Promise<Subscription | null>;
  subscriptions(tenantId: string): Promise<Subscription[]>;
  deleteSubscription(tenantId: string, name: string): Promise<boolean>;
  pull(tenantId: string, name: string, max: number): Promise<LeasedMessage[]>;
  /** The lease ids acknowledged (an unknown or expired lease is skipped). */
  ack(tenantId: string, name: string, leaseIds: string[]): Promise<string[]>;
  /** Back to the queue after the backoff, or to the DLQ after the last delivery; null for an unknown lease. */
  nack(tenantId: string, name: string, leaseId: string, error: string | null): Promise<'ready' | 'dead' | null>;
  deadLetters(tenantId: string, name: string, afterPosition: number, limit: number): Promise<DeadLetter[]>;
  deadLetter(tenantId: string, name: string, position: number): Promise<DeadLetter | null>;
  /** Dead messages back to the queue (all when `positions` is null), audited in the same transaction. */
  redrive(
    tenantId: string,
    name: string,
    positions: number[] | null,
    audit: (positions: number[]) => AuditEventInput,
  ): Promise<number[]>;
  /** Moves the group's position; messages after it not leased nor dead are delivered again. */
  rewind(tenantId: string, name: string, afterPosition: number): Promise<void>;
}

export interface EventsStoreHooks {
  /**
   * Runs inside the publish's transaction right after a new event is stored (not for a duplicate):
   * what it writes commits or rolls back with the event. The events service queues webhook
   * deliveries here (docs/webhooks.md); a throw aborts the publish.
   */
  afterInsert?: (tx: SqlQuery, event: EventRecord) => Promise<void>;
  /** The same for several events stored by one statement (`appendMany`); without it, `afterInsert` runs for each. */
  afterInsertMany?: (tx: SqlQuery, events: readonly EventRecord[]) => Promise<void>;
}

async function eventsByIds(q: SqlQuery, tenantId: string, ids: string[]): Promise<Map<string, EventRecord>> {
  const res = await q.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM event_records r WHERE r.tenant_id = $1 AND r.id = ANY($2::text[])`,
    [tenantId, ids],
  );
  return new Map(res.rows.map((r) => [r.id, toEvent(r)]));
}

/**
 * One statement, so one round trip: the retry check, the quota, the head row's upsert (locked
 * until commit, so the stream's publishes commit in position order) and the insert. Five round
 * trips in an explicit transaction measured 3× slower under the events bench
 * (docs/benchmarks.md). The quota is read without a lock: concurrent publishes may pass it by a
 * few events.
 */
async function publishStatement(
  q: SqlQuery,
  tenantId: string,
  e: NewEvent,
  quotaBytes: number,
): Promise<PublishOutcome> {
  const res = await q.query<EventRow & { kind: 'stored' | 'duplicate' | 'over-quota'; used: number | null }>(
    `WITH seen AS (
       SELECT ${EVENT_COLUMNS} FROM event_records r WHERE r.tenant_id = $1 AND r.id = $2
     ), used AS (
       SELECT coalesce(sum(bytes), 0)::float8 AS bytes FROM event_streams WHERE tenant_id = $1
     ), head AS (
       INSERT INTO event_streams (tenant_id, topic, last_position, bytes)
       SELECT $1, $3, 1, $10::int8 WHERE NOT EXISTS (SELECT 1 FROM seen) AND (SELECT bytes FROM used) + $10::int8 <= $11::float8
       ON CONFLICT (tenant_id, topic) DO UPDATE
         SET last_position = event_streams.last_position + 1, bytes = event_streams.bytes + EXCLUDED.bytes
       RETURNING last_position
     ), ins AS (
       INSERT INTO event_records AS r (id, tenant_id, topic, position, source, type, subject, time, traceparent, data, size)
       SELECT $2, $1, $3, head.last_position, $4, $5, $6, $7::timestamptz, $8, $9::jsonb, $10::int4 FROM head
       ON CONFLICT (tenant_id, id) DO NOTHING
       RETURNING ${EVENT_COLUMNS}
     )
     SELECT 'stored' AS kind, NULL::float8 AS used, ins.* FROM ins
     UNION ALL SELECT 'duplicate', NULL, seen.* FROM seen
     UNION ALL SELECT 'over-quota', used.bytes, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM used
      WHERE NOT EXISTS (SELECT 1 FROM seen) AND NOT EXISTS (SELECT 1 FROM head)`,
    [
      tenantId,
      e.id,
      e.topic,
      e.source,
      e.type,
      e.subject,
      e.time,
      e.traceparent,
      JSON.stringify(e.data),
      e.size,
      quotaBytes,
    ],
  );
  const row = res.rows[0];
  if (row?.kind === 'over-quota') return { kind: 'over-quota', storedBytes: Number(row.used) };
  if (row) return { kind: row.kind, event: toEvent(row) };
  // A concurrent publish of the same id won: this one leaves a gap in the positions, which readers skip.
  const again = (await eventsByIds(q, tenantId, [e.id])).get(e.id)!;
  return { kind: 'duplicate', event: again };
}

/**
 * One stream's events in one statement: those whose id is not stored yet get the next positions
 * in the given order (the stream head moves by their count, locking it as `publishStatement`
 * does), the rest are left out. A concurrent append of the same id wins: this one leaves a gap in
 * the positions, which readers skip.
 *
 * The ids stored before are looked up with `id = ANY(<the batch's ids>)` on the primary key: as
 * `NOT EXISTS (... r.id = i.id)` the planner, guessing 100 input rows, hashed every event of the
 * tenant (a bitmap scan of 20,137 rows, 84 of a pass's 137 ms for 160 notices in the validation
 * bench's database), a cost that grew with the tenant's log.
 */
async function appendManyStatement(
  q: SqlQuery,
  tenantId: string,
  topic: string,
  events: readonly NewEvent[],
): Promise<EventRecord[]> {
  const rows = events.map((e, ord) => ({
    ord,
    id: e.id,
    source: e.source,
    type: e.type,
    subject: e.subject,
    time: e.time,
    traceparent: e.traceparent,
    data: e.data ?? null,
    size: e.size,
  }));
  const res = await q.query<EventRow>(
    `WITH input AS (
       SELECT t.* FROM json_to_recordset($3::json)
         AS t(ord int, id text, source text, type text, subject text, time timestamptz, traceparent text, data jsonb, size int)
     ), fresh AS (
       SELECT i.*, row_number() OVER (ORDER BY i.ord) AS n, count(*) OVER () AS total FROM input i
        WHERE i.id <> ALL (ARRAY(SELECT r.id::text FROM event_records r
                                  WHERE r.tenant_id = $1 AND r.id = ANY (ARRAY(SELECT x.id FROM input x))))
     ), head AS (
       INSERT INTO event_streams (tenant_id, topic, last_position, bytes)
       SELECT $1, $2, count(*), coalesce(sum(size), 0) FROM fresh HAVING count(*) > 0
       ON CONFLICT (tenant_id, topic) DO UPDATE
         SET last_position = event_streams.last_position + EXCLUDED.last_position, bytes = event_streams.bytes + EXCLUDED.bytes
       RETURNING last_position
     ), ins AS (
       INSERT INTO event_records AS r (id, tenant_id, topic, position, source, type, subject, time, traceparent, data, size)
       SELECT f.id, $1, $2, head.last_position - f.total + f.n, f.source, f.type, f.subject, f.time, f.traceparent, f.data, f.size
         FROM fresh f, head
       ON CONFLICT (tenant_id, id) DO NOTHING
       RETURNING r.id, r.position::float8 AS position
     )
     SELECT * FROM ins ORDER BY position`,
    [tenantId, topic, JSON.stringify(rows)],
  );
  // The stored records are the given events with their positions: only those come back (the data
  // returned as text and parsed again was most of the statement's output for a notice).
  const given = new Map(events.map((e) => [e.id, e]));
  return res.rows.map((r) => {
    const e = given.get(r.id)!;
    return {
      id: e.id,
      tenantId,
      topic,
      position: Number(r.position),
      source: e.source,
      type: e.type,
      specversion: '1.0',
      time: new Date(e.time).toISOString(),
      subject: e.subject ?? null,
      traceparent: e.traceparent ?? null,
      data: e.data ?? null,
    };
  });
}

export function createEventsStore(sql: SqlExecutor, hooks: EventsStoreHooks = {}): EventsStore {
  const deadLetterRows = async (tenantId: string, name: string, where: string, params: unknown[], limit: number) => {
    const res = await sql.query<
      EventRow & {
        subscription: string;
        d_position: number;
        attempts: number;
        last_error: string | null;
        dead_ms: number;
      }
    >(
      `SELECT d.subscription, d.position::float8 AS d_position, d.attempts, d.last_error,
              (extract(epoch FROM d.dead_at) * 1000)::float8 AS dead_ms, ${EVENT_COLUMNS}
         FROM event_deliveries d JOIN event_records r ON r.tenant_id = d.tenant_id AND r.id = d.event_id
        WHERE d.tenant_id = $1 AND d.subscription = $2 AND d.state = 'dead' AND ${where}
        ORDER BY d.position LIMIT ${limit}`,
      [tenantId, name, ...params],
    );
    return res.rows.map((r): DeadLetter => ({
      subscription: r.subscription,
      position: Number(r.d_position),
      attempts: Number(r.attempts),
      lastError: r.last_error,
      deadAt: new Date(Number(r.dead_ms)).toISOString(),
      event: toEvent(r),
    }));
  };

  return {
    async upsertPlatformTopic(t) {
      await sql.query(
        `INSERT INTO event_topics (owner, name, version, schema, description) VALUES ($1, $2, $3, $4::jsonb, $5)
         ON CONFLICT (owner, name) DO UPDATE SET version = EXCLUDED.version, schema = EXCLUDED.schema,
           description = EXCLUDED.description WHERE event_topics.version <= EXCLUDED.version`,
        [PLATFORM_OWNER, t.name, t.version, JSON.stringify(t.schema), t.description],
      );
    },

    async createTopic(tenantId, t) {
      const res = await sql.query(
        `INSERT INTO event_topics (owner, name, version, schema, description) VALUES ($1, $2, $3, $4::jsonb, $5)
         ON CONFLICT (owner, name) DO NOTHING RETURNING name`,
        [tenantId, t.name, t.version, JSON.stringify(t.schema), t.description],
      );
      return res.rows.length === 1;
    },

    async topic(tenantId, name) {
      const res = await sql.query<TopicRow>(
        `SELECT ${TOPIC_COLUMNS} FROM event_topics WHERE owner = ANY($1::text[]) AND name = $2
         ORDER BY (owner = $3) DESC LIMIT 1`,
        [[tenantId, PLATFORM_OWNER], name, PLATFORM_OWNER],
      );
      return res.rows[0] ? toTopic(res.rows[0]) : null;
    },

    async topics(tenantId) {
      const res = await sql.query<TopicRow>(
        `SELECT ${TOPIC_COLUMNS} FROM event_topics WHERE owner = ANY($1::text[]) ORDER BY name, owner`,
        [[tenantId, PLATFORM_OWNER]],
      );
      return res.rows.map(toTopic);
    },

    async publish(tenantId, e, quotaBytes) {
      // With an afterInsert hook (webhooks), the statement and the hook share one transaction;
      // without one, the statement is its own.
      const afterInsert = hooks.afterInsert;
      if (!afterInsert) return publishStatement(sql, tenantId, e, quotaBytes);
      return sql.transaction(async (tx) => {
        const outcome = await publishStatement(tx, tenantId, e, quotaBytes);
        if (outcome.kind === 'stored') await afterInsert(tx, outcome.event);
        return outcome;
      });
    },

    async appendMany(tenantId, topic, events) {
      if (events.length === 0) return [];
      const { afterInsert, afterInsertMany } = hooks;
      if (!afterInsert && !afterInsertMany) return appendManyStatement(sql, tenantId, topic, events);
      return sql.transaction(async (tx) => {
        const stored = await appendManyStatement(tx, tenantId, topic, events);
        if (stored.length > 0) {
          if (afterInsertMany) await afterInsertMany(tx, stored);
          else for (const e of stored) await afterInsert!(tx, e);
        }
        return stored;
      });
    },

    async eventsAfter(tenantId, topic, afterPosition, limit) {
      const res = await sql.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM event_records r WHERE r.tenant_id = $1 AND r.topic = $2 AND r.position > $3
         ORDER BY r.position LIMIT ${Math.trunc(limit)}`,
        [tenantId, topic, afterPosition],
      );
      return res.rows.map(toEvent);
    },

    async headPosition(tenantId, topic) {
      const res = await sql.query<{ position: number }>(
        `SELECT last_position::float8 AS position FROM event_streams WHERE tenant_id = $1 AND topic = $2`,
        [tenantId, topic],
      );
      return Number(res.rows[0]?.position ?? 0);
    },

    async positionBefore(tenantId, topic, time) {
      const res = await sql.query<{ position: number | null }>(
        `SELECT (min(position) - 1)::float8 AS position FROM event_records
          WHERE tenant_id = $1 AND topic = $2 AND time >= $3::timestamptz`,
        [tenantId, topic, time],
      );
      const p = res.rows[0]?.position;
      return p === null || p === undefined ? this.headPosition(tenantId, topic) : Number(p);
    },

    async createSubscription(s) {
      const res = await sql.query(
        `INSERT INTO event_subscriptions (tenant_id, name, topic, position, max_deliveries, ack_timeout_ms, backoff_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, name) DO NOTHING RETURNING name`,
        [s.tenantId, s.name, s.topic, s.position, s.maxDeliveries, s.ackTimeoutMs, s.backoffMs],
      );
      return res.rows.length === 1;
    },

    async subscription(tenantId, name) {
      const res = await sql.query<SubscriptionRow>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM event_subscriptions WHERE tenant_id = $1 AND name = $2`,
        [tenantId, name],
      );
      return res.rows[0] ? toSubscription(res.rows[0]) : null;
    },

    async subscriptions(tenantId) {
      const res = await sql.query<SubscriptionRow>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM event_subscriptions WHERE tenant_id = $1 ORDER BY name`,
        [tenantId],
      );
      return res.rows.map(toSubscription);
    },

    async deleteSubscription(tenantId, name) {
      return sql.transaction(async (tx) => {
        await tx.query(`DELETE FROM event_deliveries WHERE tenant_id = $1 AND subscription = $2`, [tenantId, name]);
        const res = await tx.query(
          `DELETE FROM event_subscriptions WHERE tenant_id = $1 AND name = $2 RETURNING name`,
          [tenantId, name],
        );
        return res.rows.length === 1;
      });
    },

    async pull(tenantId, name, max) {
      return sql.transaction(async (tx) => {
        // One consumer at a time copies new events into the group's deliveries; the others skip
        // this step (SKIP LOCKED) and lease what is already there.
        const sub = await tx.query<SubscriptionRow>(
          `SELECT ${SUBSCRIPTION_COLUMNS} FROM event_subscriptions WHERE tenant_id = $1 AND name = $2
           FOR UPDATE SKIP LOCKED`,
          [tenantId, name],
        );
        const s = sub.rows[0];
        if (s) {
          await tx.query(
            `WITH added AS (
               INSERT INTO event_deliveries (tenant_id, subscription, position, event_id, order_key, state)
               SELECT r.tenant_id, $2, r.position, r.id, ${ORDER_KEY}, 'ready' FROM event_records r
                WHERE r.tenant_id = $1 AND r.topic = $3 AND r.position > $4
                ORDER BY r.position LIMIT ${MATERIALISE_BATCH}
               ON CONFLICT DO NOTHING RETURNING position
             ), last AS (
               -- From the records, not from \`added\`: rows already there after a rewind insert nothing, yet are passed.
               SELECT max(r.position) AS position FROM (
                 SELECT r.position FROM event_records r WHERE r.tenant_id = $1 AND r.topic = $3 AND r.position > $4
                  ORDER BY r.position LIMIT ${MATERIALISE_BATCH}) r
             )
             UPDATE event_subscriptions SET position = (SELECT position FROM last)
              WHERE tenant_id = $1 AND name = $2 AND (SELECT position FROM last) IS NOT NULL`,
            [tenantId, name, s.topic, s.position],
          );
        }
        // A lease that expired on its last delivery: the consumer crashed on it (a poison message).
        await tx.query(
          `UPDATE event_deliveries d SET state = 'dead', dead_at = now(), lease_id = NULL,
                  last_error = coalesce(d.last_error, 'lease expired on the last delivery')
             FROM event_subscriptions s
            WHERE d.tenant_id = $1 AND d.subscription = $2 AND s.tenant_id = d.tenant_id AND s.name = d.subscription
              AND d.state = 'leased' AND d.visible_at <= now() AND d.attempts >= s.max_deliveries`,
          [tenantId, name],
        );
        // Only the earliest undead message of each key is eligible: order per (tenant, subject).
        const leased = await tx.query<{ position: number; lease_id: string; attempts: number; event_id: string }>(
          `WITH eligible AS (
             SELECT d.position FROM event_deliveries d
              WHERE d.tenant_id = $1 AND d.subscription = $2 AND d.state IN ('ready', 'leased') AND d.visible_at <= now()
                AND NOT EXISTS (
                  SELECT 1 FROM event_deliveries e
                   WHERE e.tenant_id = d.tenant_id AND e.subscription = d.subscription AND e.order_key = d.order_key
                     AND e.position < d.position AND e.state <> 'dead')
              ORDER BY d.position LIMIT ${Math.trunc(max)}
              FOR UPDATE SKIP LOCKED
           )
           UPDATE event_deliveries d
              SET state = 'leased', attempts = d.attempts + 1, lease_id = gen_random_uuid(),
                  visible_at = now() + make_interval(secs => s.ack_timeout_ms / 1000.0)
             FROM eligible, event_subscriptions s
            WHERE d.tenant_id = $1 AND d.subscription = $2 AND d.position = eligible.position
              AND s.tenant_id = d.tenant_id AND s.name = d.subscription
           RETURNING d.position::float8 AS position, d.lease_id::text AS lease_id, d.attempts, d.event_id`,
          [tenantId, name],
        );
        if (leased.rows.length === 0) return [];
        const events = await eventsByIds(
          tx,
          tenantId,
          leased.rows.map((r) => r.event_id),
        );
        return leased.rows
          .sort((a, b) => Number(a.position) - Number(b.position))
          .map((r) => ({ leaseId: r.lease_id, attempt: Number(r.attempts), event: events.get(r.event_id)! }));
      });
    },

    async ack(tenantId, name, leaseIds) {
      if (leaseIds.length === 0) return [];
      const res = await sql.query<{ lease_id: string }>(
        `DELETE FROM event_deliveries WHERE tenant_id = $1 AND subscription = $2 AND state = 'leased'
           AND lease_id = ANY($3::uuid[]) RETURNING lease_id::text AS lease_id`,
        [tenantId, name, leaseIds],
      );
      return res.rows.map((r) => r.lease_id);
    },

    async nack(tenantId, name, leaseId, error) {
      const res = await sql.query<{ state: 'ready' | 'dead' }>(
        `UPDATE event_deliveries d
            SET state = CASE WHEN d.attempts >= s.max_deliveries THEN 'dead' ELSE 'ready' END,
                dead_at = CASE WHEN d.attempts >= s.max_deliveries THEN now() ELSE NULL END,
                visible_at = now() + make_interval(secs => least(s.backoff_ms * power(2, d.attempts - 1), $5) / 1000.0),
                lease_id = NULL, last_error = $4
           FROM event_subscriptions s
          WHERE d.tenant_id = $1 AND d.subscription = $2 AND d.state = 'leased' AND d.lease_id = $3::uuid
            AND s.tenant_id = d.tenant_id AND s.name = d.subscription
          RETURNING d.state`,
        [tenantId, name, leaseId, error, MAX_BACKOFF_MS],
      );
      return res.rows[0]?.state ?? null;
    },

    deadLetters(tenantId, name, afterPosition, limit) {
      return deadLetterRows(tenantId, name, 'd.position > $3', [afterPosition], Math.trunc(limit));
    },

    async deadLetter(tenantId, name, position) {
      const rows = await deadLetterRows(tenantId, name, 'd.position = $3', [position], 1);
      return rows[0] ?? null;
    },

    async redrive(tenantId, name, positions, audit) {
      return sql.transaction(async (tx) => {
        const res = await tx.query<{ position: number }>(
          `UPDATE event_deliveries SET state = 'ready', attempts = 0, visible_at = now(), dead_at = NULL, lease_id = NULL
            WHERE tenant_id = $1 AND subscription = $2 AND state = 'dead'
              AND ($3::int8[] IS NULL OR position = ANY($3::int8[]))
            RETURNING position::float8 AS position`,
          [tenantId, name, positions],
        );
        const moved = res.rows.map((r) => Number(r.position)).sort((a, b) => a - b);
        // The audit record commits with the redrive (the outbox relay takes it to the ledger).
        if (moved.length > 0) await sqlOutboxWriter(tx, 'events').append(audit(moved));
        return moved;
      });
    },

    async rewind(tenantId, name, afterPosition) {
      await sql.transaction(async (tx) => {
        await tx.query(
          `DELETE FROM event_deliveries WHERE tenant_id = $1 AND subscription = $2 AND state = 'ready' AND position > $3`,
          [tenantId, name, afterPosition],
        );
        await tx.query(`UPDATE event_subscriptions SET position = $3 WHERE tenant_id = $1 AND name = $2`, [
          tenantId,
          name,
          afterPosition,
        ]);
      });
    },
  };
}
