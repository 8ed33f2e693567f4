// SQL of the outbox relay (table outbox_events, prisma/schema/outbox.prisma). Producers write rows
// in their own transactions (identity through Prisma); this store only reads undelivered rows
// per tenant and records delivery outcomes.
import type { Database } from '../db/database';
import type { SqlQuery } from '../db/sql';

export interface OutboxRow {
  id: string;
  service: string;
  tenant_id: string;
  event_type: string;
  event_data: Record<string, unknown>;
  user_id: string | null;
  correlation_id: string | null;
  description: string | null;
  idempotency_key: string;
  /** The writing request's W3C traceparent, when it was traced. */
  traceparent?: string | null;
  attempts: number;
  due: boolean;
}

export interface TenantOutbox {
  /** The tenant's undelivered rows in id order (the order they must reach the ledger in). */
  pending(limit: number): Promise<OutboxRow[]>;
  /** Marks rows delivered, in one statement however many. */
  markDelivered(ids: readonly string[]): Promise<void>;
  markFailed(id: string, delayMs: number, error: string): Promise<void>;
  /** The ledger refused the row for good: keep it, stop delivering it. */
  markDeadLettered(id: string, error: string): Promise<void>;
}

export interface OutboxStore {
  /** Deletes rows delivered before `before` (the ledger holds those events); returns how many. */
  pruneDelivered(services: string[] | null, before: Date): Promise<number>;
  /** Tenants whose oldest undelivered row is due, oldest first. */
  dueTenants(services: string[] | null, limit: number): Promise<string[]>;
  /**
   * Runs `work` with exclusive rights to the tenant's rows, or returns false when another relay
   * holds them. On PostgreSQL: a transaction holding an advisory lock keyed by the tenant, so
   * relays in several processes never deliver one tenant's events out of order. On PGlite (one
   * process, one relay) no transaction is held, since the ledger's own writes need the single
   * connection while we wait for its HTTP answer.
   */
  withTenant(
    tenantId: string,
    services: string[] | null,
    work: (outbox: TenantOutbox) => Promise<void>,
  ): Promise<boolean>;
}

const SERVICE_FILTER = '($2::text[] IS NULL OR service = ANY($2::text[]))';

function tenantOutbox(q: SqlQuery, tenantId: string, services: string[] | null, lockRows: boolean): TenantOutbox {
  return {
    async pending(limit) {
      // ORDER BY the table's bigint id, not the text alias (which would put 10 before 2).
      const res = await q.query<OutboxRow>(
        `SELECT id::text AS id, service, tenant_id, event_type, event_data, user_id, correlation_id, description, idempotency_key,
                traceparent, attempts, next_attempt_at <= now() AS due
         FROM outbox_events WHERE tenant_id = $1 AND delivered_at IS NULL AND dead_lettered_at IS NULL AND ${SERVICE_FILTER}
         ORDER BY outbox_events.id LIMIT $3 ${lockRows ? 'FOR UPDATE SKIP LOCKED' : ''}`,
        [tenantId, services, limit],
      );
      return res.rows;
    },
    async markDelivered(ids) {
      if (ids.length === 0) return;
      await q.query(
        'UPDATE outbox_events SET delivered_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = ANY($1::int8[])',
        [ids],
      );
    },
    async markFailed(id, delayMs, error) {
      await q.query(
        `UPDATE outbox_events SET attempts = attempts + 1, last_error = $3,
                next_attempt_at = now() + ($2::float8 * interval '1 millisecond') WHERE id = $1::int8`,
        [id, delayMs, error.slice(0, 2000)],
      );
    },
    async markDeadLettered(id, error) {
      await q.query(
        'UPDATE outbox_events SET dead_lettered_at = now(), attempts = attempts + 1, last_error = $2 WHERE id = $1::int8',
        [id, error.slice(0, 2000)],
      );
    },
  };
}

export function createOutboxStore(db: Database): OutboxStore {
  return {
    async pruneDelivered(services, before) {
      const res = await db.sql.query(
        `DELETE FROM outbox_events WHERE delivered_at < $2 AND ($1::text[] IS NULL OR service = ANY($1::text[]))`,
        [services, before],
      );
      return res.rowCount;
    },
    async dueTenants(services, limit) {
      const res = await db.sql.query<{ tenant_id: string }>(
        `SELECT tenant_id FROM (
           SELECT DISTINCT ON (tenant_id) tenant_id, id, next_attempt_at FROM outbox_events
           WHERE delivered_at IS NULL AND dead_lettered_at IS NULL AND ($1::text[] IS NULL OR service = ANY($1::text[]))
           ORDER BY tenant_id, id
         ) AS heads WHERE next_attempt_at <= now() ORDER BY id LIMIT $2`,
        [services, limit],
      );
      return res.rows.map((r) => r.tenant_id);
    },
    async withTenant(tenantId, services, work) {
      if (db.kind === 'pglite') {
        await work(tenantOutbox(db.sql, tenantId, services, false));
        return true;
      }
      return db.sql.transaction(async (tx) => {
        const lock = await tx.query<{ ok: boolean }>(
          `SELECT pg_try_advisory_xact_lock(hashtext('outbox:' || $1)) AS ok`,
          [tenantId],
        );
        if (!lock.rows[0]?.ok) return false;
        await work(tenantOutbox(tx, tenantId, services, true));
        return true;
      });
    },
  };
}
