// SQL of the delivery queue (one row per event and endpoint, inserted with the event by
// platform/events/backbone/webhook-queue.store.ts) and the delivery log (one row per HTTP attempt). Claiming is built for several worker processes on one database: the claim locks
// the endpoints it serves FOR UPDATE SKIP LOCKED, so two workers never count one endpoint's
// in-flight deliveries at the same time (its concurrency holds across processes), then leases the
// due rows. A lease (locked_until) instead of a held transaction: the HTTP call runs outside any
// transaction (PGlite has one connection), and a worker that dies simply lets its lease run out.
import type { Database } from '../../../platform/db/database';

export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  timeout_ms: number;
}

export interface AttemptRecord {
  tenantId: string;
  endpointId: string;
  queueId: string;
  eventId: string;
  attempt: number;
  outcome: 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused';
  statusCode: number | null;
  response: string | null;
  durationMs: number;
}

export interface DeliveryRow {
  id: string;
  queue_id: string;
  event_id: string;
  attempt: number;
  outcome: string;
  status_code: number | null;
  response: string | null;
  duration_ms: number;
  attempted_at: Date;
}

export interface MessageRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface DeliveryStore {
  /** Leases up to `limit` due deliveries, never more per endpoint than its free concurrency. */
  claim(workerId: string, limit: number, leaseMarginMs: number): Promise<ClaimedDelivery[]>;
  delivered(id: string, workerId: string): Promise<void>;
  /** Gives a lease back without counting an attempt (the worker stopped mid-delivery): due again now. */
  release(id: string, workerId: string): Promise<void>;
  retryLater(id: string, workerId: string, delayMs: number, error: string): Promise<void>;
  failed(id: string, workerId: string, error: string): Promise<void>;
  /** Pending deliveries of a disabled or deleted endpoint stop here. */
  cancelPending(tenantId: string, endpointId: string, reason: string): Promise<number>;
  /** A failed or cancelled delivery goes back to the queue with a fresh set of attempts. */
  requeue(tenantId: string, queueId: string): Promise<boolean>;
  /**
   * An endpoint's delivery of one event back to the queue with a fresh set of attempts, whatever
   * its outcome was; 'pending' when it is still queued, null when it was never queued there.
   */
  requeueEvent(tenantId: string, endpointId: string, eventId: string): Promise<'requeued' | 'pending' | null>;
  recordAttempt(a: AttemptRecord): Promise<void>;
  attempts(tenantId: string, endpointId: string, limit: number): Promise<DeliveryRow[]>;
  messages(tenantId: string, endpointId: string, limit: number): Promise<MessageRow[]>;
}

const DUE = `q.status = 'pending' AND q.next_attempt_at <= now() AND (q.locked_until IS NULL OR q.locked_until <= now())`;

export function createDeliveryStore(db: Database): DeliveryStore {
  return {
    async claim(workerId, limit, leaseMarginMs) {
      return db.sql.transaction(async (tx) => {
        // 1. The endpoints with due work that no other worker is claiming for right now.
        const eps = await tx.query<{ id: string }>(
          `SELECT e.id::text AS id FROM webhook_endpoints e
           WHERE e.enabled AND EXISTS (SELECT 1 FROM webhook_queue q WHERE q.endpoint_id = e.id AND ${DUE})
           ORDER BY random() LIMIT 100 FOR UPDATE OF e SKIP LOCKED`,
        );
        if (eps.rows.length === 0) return [];
        // 2. A new statement, so a new snapshot: the in-flight counts include every lease that
        //    a worker committed before we locked the endpoint.
        const res = await tx.query<ClaimedDelivery>(
          `WITH ep AS (
             SELECT e.id, e.url, e.timeout_ms,
                    e.max_concurrency - (SELECT count(*) FROM webhook_queue f
                      WHERE f.endpoint_id = e.id AND f.status = 'pending' AND f.locked_until > now()) AS free
             FROM webhook_endpoints e WHERE e.id = ANY($1::uuid[])
           ), picked AS (
             SELECT c.id, ep.url, ep.timeout_ms FROM ep CROSS JOIN LATERAL (
               SELECT q.id, q.next_attempt_at FROM webhook_queue q WHERE q.endpoint_id = ep.id AND ${DUE}
               ORDER BY q.next_attempt_at, q.id LIMIT GREATEST(ep.free, 0) FOR UPDATE SKIP LOCKED
             ) c ORDER BY c.next_attempt_at, c.id LIMIT $2
           )
           UPDATE webhook_queue w SET locked_by = $3,
             locked_until = now() + ((picked.timeout_ms + $4::int) * interval '1 millisecond')
           FROM picked WHERE w.id = picked.id
           RETURNING w.id::text AS id, w.tenant_id, w.endpoint_id::text AS endpoint_id, w.event_id, w.event_type,
             w.payload, w.attempts, picked.url, picked.timeout_ms`,
          [eps.rows.map((r) => r.id), limit, workerId, leaseMarginMs],
        );
        return res.rows;
      });
    },

    // The outcome updates require the lease to be ours still: a row whose lease ran out and was
    // claimed by another worker is that worker's to finish.
    async delivered(id, workerId) {
      await db.sql.query(
        `UPDATE webhook_queue SET status = 'delivered', attempts = attempts + 1, finished_at = now(),
           locked_until = NULL, locked_by = NULL, last_error = NULL WHERE id = $1::int8 AND locked_by = $2`,
        [id, workerId],
      );
    },
    async release(id, workerId) {
      await db.sql.query(
        `UPDATE webhook_queue SET locked_until = NULL, locked_by = NULL WHERE id = $1::int8 AND locked_by = $2`,
        [id, workerId],
      );
    },
    async retryLater(id, workerId, delayMs, error) {
      await db.sql.query(
        `UPDATE webhook_queue SET attempts = attempts + 1, last_error = $3, locked_until = NULL, locked_by = NULL,
           next_attempt_at = now() + ($4::float8 * interval '1 millisecond')
         WHERE id = $1::int8 AND locked_by = $2 AND status = 'pending'`,
        [id, workerId, error.slice(0, 2000), delayMs],
      );
    },
    async failed(id, workerId, error) {
      await db.sql.query(
        `UPDATE webhook_queue SET status = 'failed', attempts = attempts + 1, last_error = $3, finished_at = now(),
           locked_until = NULL, locked_by = NULL WHERE id = $1::int8 AND locked_by = $2`,
        [id, workerId, error.slice(0, 2000)],
      );
    },
    async cancelPending(tenantId, endpointId, reason) {
      const res = await db.sql.query(
        `UPDATE webhook_queue SET status = 'cancelled', last_error = $3, finished_at = now()
         WHERE tenant_id = $1 AND endpoint_id = $2::uuid AND status = 'pending'`,
        [tenantId, endpointId, reason],
      );
      return res.rowCount;
    },
    async requeue(tenantId, queueId) {
      const res = await db.sql.query(
        `UPDATE webhook_queue SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
           locked_until = NULL, locked_by = NULL
         WHERE tenant_id = $1 AND id = $2::int8 AND status IN ('failed', 'cancelled')`,
        [tenantId, queueId],
      );
      return res.rowCount > 0;
    },
    async requeueEvent(tenantId, endpointId, eventId) {
      const res = await db.sql.query(
        `UPDATE webhook_queue SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
           last_error = NULL, locked_until = NULL, locked_by = NULL
         WHERE tenant_id = $1 AND endpoint_id = $2::uuid AND event_id = $3 AND status <> 'pending'`,
        [tenantId, endpointId, eventId],
      );
      if (res.rowCount > 0) return 'requeued';
      const queued = await db.sql.query(
        `SELECT 1 FROM webhook_queue WHERE tenant_id = $1 AND endpoint_id = $2::uuid AND event_id = $3`,
        [tenantId, endpointId, eventId],
      );
      return queued.rows.length > 0 ? 'pending' : null;
    },
    async recordAttempt(a) {
      await db.sql.query(
        `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, queue_id, event_id, attempt, outcome, status_code, response, duration_ms)
         VALUES ($1, $2::uuid, $3::int8, $4, $5, $6, $7, $8, $9)`,
        [a.tenantId, a.endpointId, a.queueId, a.eventId, a.attempt, a.outcome, a.statusCode, a.response, a.durationMs],
      );
    },
    async attempts(tenantId, endpointId, limit) {
      const res = await db.sql.query<DeliveryRow>(
        `SELECT id::text AS id, queue_id::text AS queue_id, event_id, attempt, outcome, status_code, response, duration_ms, attempted_at
         FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2::uuid ORDER BY id DESC LIMIT $3`,
        [tenantId, endpointId, limit],
      );
      return res.rows;
    },
    async messages(tenantId, endpointId, limit) {
      const res = await db.sql.query<MessageRow>(
        `SELECT id::text AS id, event_id, event_type, status, attempts, next_attempt_at, last_error, created_at, finished_at
         FROM webhook_queue WHERE tenant_id = $1 AND endpoint_id = $2::uuid ORDER BY id DESC LIMIT $3`,
        [tenantId, endpointId, limit],
      );
      return res.rows;
    },
  };
}
