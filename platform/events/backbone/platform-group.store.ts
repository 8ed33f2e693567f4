// SQL of the platform's consumer groups (tables event_platform_groups, event_platform_cursors):
// a group owned by a platform service that reads EVERY tenant's stream of one topic, for the
// platform's own consumers (a cache, a catalogue, workflow triggers). Tenant groups are
// backbone.store.ts's; this one is their cross-tenant twin and shares their delivery table:
// messages are event_deliveries rows in each event's own tenant, under the subscription name
// `platform:<group>`, which a tenant's subscription name can never be (no ':'). So the rules are
// the same: leases with `FOR UPDATE SKIP LOCKED` (competing consumers in any number of
// processes), order per (tenant, subject), nack with exponential backoff, the DLQ after the last
// delivery. These functions span tenants by design (the group is the platform's); each message
// names its tenant, and a handler acts in that tenant only.
import type { SqlExecutor, SqlQuery } from '../../db/sql';
import { sqlOutboxWriter, type AuditEventInput } from '../../outbox/outbox.writer';
import { EVENT_COLUMNS, MAX_BACKOFF_MS, ORDER_KEY, toEvent, type EventRow } from './backbone.store';
import type { DeadLetter, EventRecord } from './backbone.types';

/** Events copied into the group's deliveries per stream and pull, and streams per pull. */
const MATERIALISE_BATCH = 1000;
const STREAMS_PER_PULL = 100;

export interface PlatformGroup {
  name: string;
  topic: string;
  maxDeliveries: number;
  ackTimeoutMs: number;
  backoffMs: number;
}

/** A leased message of a platform group: ack or nack it with its lease id. */
export interface PlatformLease {
  leaseId: string;
  attempt: number;
  event: EventRecord;
}

/** The delivery rows' subscription name of a platform group. */
export const deliveryName = (group: string) => `platform:${group}`;

async function eventsByKeys(q: SqlQuery, keys: { tenantId: string; id: string }[]): Promise<Map<string, EventRecord>> {
  const res = await q.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM event_records r
       JOIN unnest($1::text[], $2::text[]) AS k(tenant_id, id) ON r.tenant_id = k.tenant_id AND r.id = k.id`,
    [keys.map((k) => k.tenantId), keys.map((k) => k.id)],
  );
  return new Map(res.rows.map((r) => [`${r.tenant_id}\u0000${r.id}`, toEvent(r)]));
}

/**
 * Creates the group if missing and brings its settings up to the code's. A new group starts at
 * each existing stream's head (`from: 'now'`, events published from now on) or at the start of
 * every stream (`'start'`); a stream that appears later is read from its start either way.
 * Resolves true when the group was created.
 */
export async function ensurePlatformGroup(
  sql: SqlExecutor,
  g: PlatformGroup,
  from: 'now' | 'start' = 'now',
): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const created = await tx.query(
      `INSERT INTO event_platform_groups (name, topic, max_deliveries, ack_timeout_ms, backoff_ms)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING RETURNING name`,
      [g.name, g.topic, g.maxDeliveries, g.ackTimeoutMs, g.backoffMs],
    );
    if (created.rows.length === 0) {
      await tx.query(
        `UPDATE event_platform_groups SET max_deliveries = $2, ack_timeout_ms = $3, backoff_ms = $4, seen_at = now()
          WHERE name = $1 AND (max_deliveries, ack_timeout_ms, backoff_ms) IS DISTINCT FROM ($2, $3, $4)`,
        [g.name, g.maxDeliveries, g.ackTimeoutMs, g.backoffMs],
      );
      return false;
    }
    if (from === 'now') {
      await tx.query(
        `INSERT INTO event_platform_cursors (group_name, tenant_id, position)
         SELECT $1, tenant_id, last_position FROM event_streams WHERE topic = $2
         ON CONFLICT (group_name, tenant_id) DO NOTHING`,
        [g.name, g.topic],
      );
    }
    return true;
  });
}

/**
 * Whether a pull of the group could lease anything: a stream of its topic past the group's cursor,
 * or a delivery ready or leased whose visibility has come (a lease expired on its last delivery
 * included: the pull dead-letters it). One autocommit read, which a consumer's idle poll makes
 * instead of the pull's transaction of four statements; true is a superset of "a pull leases
 * something" (a message behind an earlier one of its subject still answers true).
 */
export async function platformGroupHasWork(sql: SqlQuery, group: string, topic: string): Promise<boolean> {
  const res = await sql.query<{ work: boolean }>(
    `SELECT EXISTS (
              SELECT 1 FROM event_streams s
                LEFT JOIN event_platform_cursors c ON c.group_name = $1 AND c.tenant_id = s.tenant_id
               WHERE s.topic = $2 AND s.last_position > coalesce(c.position, 0))
         OR EXISTS (
              SELECT 1 FROM event_deliveries d
               WHERE d.subscription = $3 AND d.state IN ('ready', 'leased') AND d.visible_at <= now()) AS work`,
    [group, topic, deliveryName(group)],
    { prepareAs: 'platform_group_has_work' },
  );
  return res.rows[0]?.work === true;
}

/**
 * Leases up to `max` messages across tenants. One consumer at a time (the holder of the group's
 * row) first copies the events past each stream's cursor into the deliveries; only the earliest
 * message of each (tenant, subject) that is not dead is eligible.
 */
export async function pullPlatformGroup(sql: SqlExecutor, group: string, max: number): Promise<PlatformLease[]> {
  const name = deliveryName(group);
  return sql.transaction(async (tx) => {
    const locked = await tx.query<{ topic: string }>(
      `UPDATE event_platform_groups SET seen_at = now()
        WHERE name = (SELECT name FROM event_platform_groups WHERE name = $1 FOR UPDATE SKIP LOCKED)
        RETURNING topic`,
      [group],
    );
    const topic = locked.rows[0]?.topic;
    if (topic !== undefined) {
      // Streams read up to their committed head (a stream's publishes commit in position order),
      // so the cursor may move to the head even past a gap a duplicate publish left.
      await tx.query(
        `WITH behind AS (
           SELECT s.tenant_id, coalesce(c.position, 0) AS after, s.last_position AS head
             FROM event_streams s
             LEFT JOIN event_platform_cursors c ON c.group_name = $1 AND c.tenant_id = s.tenant_id
            WHERE s.topic = $2 AND s.last_position > coalesce(c.position, 0)
            ORDER BY s.tenant_id LIMIT ${STREAMS_PER_PULL}
         ), picked AS (
           SELECT b.tenant_id, r.position, r.id, r.subject FROM behind b
            CROSS JOIN LATERAL (
              SELECT r.position, r.id, r.subject FROM event_records r
               WHERE r.tenant_id = b.tenant_id AND r.topic = $2 AND r.position > b.after AND r.position <= b.head
               ORDER BY r.position LIMIT ${MATERIALISE_BATCH}) r
         ), added AS (
           INSERT INTO event_deliveries (tenant_id, subscription, position, event_id, order_key, state)
           SELECT r.tenant_id, $3, r.position, r.id, ${ORDER_KEY}, 'ready' FROM picked r
           ON CONFLICT DO NOTHING RETURNING 1
         )
         INSERT INTO event_platform_cursors (group_name, tenant_id, position)
         SELECT $1, b.tenant_id,
                CASE WHEN count(p.position) < ${MATERIALISE_BATCH} THEN b.head ELSE max(p.position) END
           FROM behind b LEFT JOIN picked p ON p.tenant_id = b.tenant_id
          GROUP BY b.tenant_id, b.head
         ON CONFLICT (group_name, tenant_id) DO UPDATE SET position = EXCLUDED.position`,
        [group, topic, name],
      );
    }
    // A lease that expired on its last delivery: the consumer died on it (a poison message).
    await tx.query(
      `UPDATE event_deliveries d SET state = 'dead', dead_at = now(), lease_id = NULL,
              last_error = coalesce(d.last_error, 'lease expired on the last delivery')
         FROM event_platform_groups g
        WHERE d.subscription = $1 AND g.name = $2 AND d.state = 'leased' AND d.visible_at <= now()
          AND d.attempts >= g.max_deliveries`,
      [name, group],
    );
    const leased = await tx.query<{
      tenant_id: string;
      position: number;
      lease_id: string;
      attempts: number;
      event_id: string;
    }>(
      `WITH eligible AS (
         SELECT d.tenant_id, d.position FROM event_deliveries d
          WHERE d.subscription = $1 AND d.state IN ('ready', 'leased') AND d.visible_at <= now()
            AND NOT EXISTS (
              SELECT 1 FROM event_deliveries e
               WHERE e.tenant_id = d.tenant_id AND e.subscription = d.subscription AND e.order_key = d.order_key
                 AND e.position < d.position AND e.state <> 'dead')
          ORDER BY d.visible_at, d.position LIMIT ${Math.trunc(max)}
          FOR UPDATE SKIP LOCKED
       )
       UPDATE event_deliveries d
          SET state = 'leased', attempts = d.attempts + 1, lease_id = gen_random_uuid(),
              visible_at = now() + make_interval(secs => g.ack_timeout_ms / 1000.0)
         FROM eligible, event_platform_groups g
        WHERE d.tenant_id = eligible.tenant_id AND d.subscription = $1 AND d.position = eligible.position
          AND g.name = $2
       RETURNING d.tenant_id, d.position::float8 AS position, d.lease_id::text AS lease_id, d.attempts, d.event_id`,
      [name, group],
    );
    if (leased.rows.length === 0) return [];
    const events = await eventsByKeys(
      tx,
      leased.rows.map((r) => ({ tenantId: r.tenant_id, id: r.event_id })),
    );
    return leased.rows
      .map((r) => ({
        leaseId: r.lease_id,
        attempt: Number(r.attempts),
        event: events.get(`${r.tenant_id}\u0000${r.event_id}`)!,
      }))
      .sort((a, b) => a.event.position - b.event.position);
  });
}

/** Deletes acknowledged messages; resolves with the lease ids that were still held. */
export async function ackPlatformGroup(sql: SqlQuery, group: string, leaseIds: string[]): Promise<string[]> {
  if (leaseIds.length === 0) return [];
  const res = await sql.query<{ lease_id: string }>(
    `DELETE FROM event_deliveries WHERE subscription = $1 AND state = 'leased' AND lease_id = ANY($2::uuid[])
     RETURNING lease_id::text AS lease_id`,
    [deliveryName(group), leaseIds],
  );
  return res.rows.map((r) => r.lease_id);
}

/** Back to the queue after `backoff × 2^(attempt-1)`, or to the DLQ after the last delivery. */
export async function nackPlatformGroup(
  sql: SqlQuery,
  group: string,
  leaseId: string,
  error: string | null,
): Promise<'ready' | 'dead' | null> {
  const res = await sql.query<{ state: 'ready' | 'dead' }>(
    `UPDATE event_deliveries d
        SET state = CASE WHEN d.attempts >= g.max_deliveries THEN 'dead' ELSE 'ready' END,
            dead_at = CASE WHEN d.attempts >= g.max_deliveries THEN now() ELSE NULL END,
            visible_at = now() + make_interval(secs => least(g.backoff_ms * power(2, d.attempts - 1), $5) / 1000.0),
            lease_id = NULL, last_error = $4
       FROM event_platform_groups g
      WHERE d.subscription = $1 AND g.name = $2 AND d.state = 'leased' AND d.lease_id = $3::uuid
      RETURNING d.state`,
    [deliveryName(group), group, leaseId, error?.slice(0, 2000) ?? null, MAX_BACKOFF_MS],
  );
  return res.rows[0]?.state ?? null;
}

/** The group's dead letters, every tenant's, oldest first (operators; a tenant never sees them). */
export async function platformDeadLetters(sql: SqlQuery, group: string, limit = 100): Promise<DeadLetter[]> {
  const res = await sql.query<
    EventRow & { d_position: number; attempts: number; last_error: string | null; dead_ms: number }
  >(
    `SELECT d.position::float8 AS d_position, d.attempts, d.last_error,
            (extract(epoch FROM d.dead_at) * 1000)::float8 AS dead_ms, ${EVENT_COLUMNS}
       FROM event_deliveries d JOIN event_records r ON r.tenant_id = d.tenant_id AND r.id = d.event_id
      WHERE d.subscription = $1 AND d.state = 'dead'
      ORDER BY d.dead_at, d.tenant_id, d.position LIMIT ${Math.trunc(limit)}`,
    [deliveryName(group)],
  );
  return res.rows.map((r) => ({
    subscription: group,
    position: Number(r.d_position),
    attempts: Number(r.attempts),
    lastError: r.last_error,
    deadAt: new Date(Number(r.dead_ms)).toISOString(),
    event: toEvent(r),
  }));
}

/** Dead messages back to the queue with fresh attempts (all of the group's, or one tenant's). */
export async function redrivePlatformGroup(sql: SqlQuery, group: string, tenantId?: string): Promise<number> {
  const res = await sql.query(
    `UPDATE event_deliveries SET state = 'ready', attempts = 0, visible_at = now(), dead_at = NULL, lease_id = NULL
      WHERE subscription = $1 AND state = 'dead' AND ($2::text IS NULL OR tenant_id = $2)`,
    [deliveryName(group), tenantId ?? null],
  );
  return res.rowCount;
}

/** Removes a group, its cursors and its messages (a per-process group whose process stops). */
export async function deletePlatformGroup(sql: SqlExecutor, group: string): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.query(`DELETE FROM event_deliveries WHERE subscription = $1`, [deliveryName(group)]);
    await tx.query(`DELETE FROM event_platform_cursors WHERE group_name = $1`, [group]);
    await tx.query(`DELETE FROM event_platform_groups WHERE name = $1`, [group]);
  });
}

/**
 * Names of groups matching `pattern` (SQL LIKE) that no consumer pulled since `before`: the
 * per-process groups of processes that died without deleting theirs.
 */
export async function idlePlatformGroups(sql: SqlQuery, pattern: string, before: Date): Promise<string[]> {
  const res = await sql.query<{ name: string }>(
    `SELECT name FROM event_platform_groups WHERE name LIKE $1 AND seen_at < $2`,
    [pattern, before],
  );
  return res.rows.map((r) => r.name);
}

/** A platform group as operators see it: its settings and its messages by state, over every tenant. */
export interface PlatformGroupStats extends PlatformGroup {
  /** When a consumer last pulled (or the group was created or updated). */
  seenAt: string;
  ready: number;
  leased: number;
  dead: number;
}

/** Every platform group (or the one named) with its message counts (operators). */
export async function platformGroupStats(sql: SqlQuery, name?: string): Promise<PlatformGroupStats[]> {
  const res = await sql.query<{
    name: string;
    topic: string;
    max_deliveries: number;
    ack_timeout_ms: number;
    backoff_ms: number;
    seen_ms: number;
    ready: number;
    leased: number;
    dead: number;
  }>(
    `SELECT g.name, g.topic, g.max_deliveries, g.ack_timeout_ms, g.backoff_ms,
            (extract(epoch FROM g.seen_at) * 1000)::float8 AS seen_ms,
            count(d.position) FILTER (WHERE d.state = 'ready')::int AS ready,
            count(d.position) FILTER (WHERE d.state = 'leased')::int AS leased,
            count(d.position) FILTER (WHERE d.state = 'dead')::int AS dead
       FROM event_platform_groups g
       LEFT JOIN event_deliveries d ON d.subscription = 'platform:' || g.name
      WHERE $1::text IS NULL OR g.name = $1
      GROUP BY g.name ORDER BY g.name`,
    [name ?? null],
  );
  return res.rows.map((r) => ({
    name: r.name,
    topic: r.topic,
    maxDeliveries: Number(r.max_deliveries),
    ackTimeoutMs: Number(r.ack_timeout_ms),
    backoffMs: Number(r.backoff_ms),
    seenAt: new Date(Number(r.seen_ms)).toISOString(),
    ready: Number(r.ready),
    leased: Number(r.leased),
    dead: Number(r.dead),
  }));
}

/**
 * Like redrivePlatformGroup, in one transaction with an audit event per tenant whose messages
 * moved (`audit` builds it; the outbox relay takes it to that tenant's ledger). Resolves with the
 * positions moved per tenant.
 */
export async function redrivePlatformGroupAudited(
  sql: SqlExecutor,
  group: string,
  tenantId: string | undefined,
  audit: (tenantId: string, positions: number[]) => AuditEventInput,
): Promise<{ tenantId: string; positions: number[] }[]> {
  return sql.transaction(async (tx) => {
    const res = await tx.query<{ tenant_id: string; position: number }>(
      `UPDATE event_deliveries SET state = 'ready', attempts = 0, visible_at = now(), dead_at = NULL, lease_id = NULL
        WHERE subscription = $1 AND state = 'dead' AND ($2::text IS NULL OR tenant_id = $2)
        RETURNING tenant_id, position::float8 AS position`,
      [deliveryName(group), tenantId ?? null],
    );
    const byTenant = new Map<string, number[]>();
    for (const r of res.rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), Number(r.position)]);
    const moved = [...byTenant.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([t, positions]) => ({ tenantId: t, positions: positions.sort((a, b) => a - b) }));
    const outbox = sqlOutboxWriter(tx, 'events');
    for (const m of moved) await outbox.append(audit(m.tenantId, m.positions));
    return moved;
  });
}
