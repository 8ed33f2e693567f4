// The producer side of the transactional outbox (`outbox_events`), shared by every service that
// writes audit events: called with the transaction's client, so an event commits or rolls back
// with the change it records; the relay (outbox-relay.ts) delivers it to the ledger.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../auth/caller';
import type { PrismaLike } from '../db/prisma-like';
import { groupCommit } from '../db/group-commit';
import type { SqlQuery } from '../db/sql';
import { currentTraceparent } from '../telemetry/trace-context';

export interface AuditEventInput {
  tenantId: string;
  eventType: string;
  eventData: Record<string, unknown>;
  userId: string | null;
  correlationId: string | null;
  description?: string;
  idempotencyKey: string;
}

export interface OutboxWriter {
  append(event: AuditEventInput): Promise<void>;
}

export function outboxRow(service: string, event: AuditEventInput): Prisma.OutboxEventCreateManyInput {
  return {
    service,
    tenantId: event.tenantId,
    eventType: event.eventType,
    eventData: event.eventData as Prisma.InputJsonObject,
    userId: event.userId,
    correlationId: event.correlationId,
    description: event.description ?? null,
    idempotencyKey: event.idempotencyKey,
    // The writing request's trace, continued by the relay (null with tracing off).
    traceparent: currentTraceparent(),
  };
}

/** Writes with the given client: inside a transaction, the event commits with the change. */
export function outboxWriter(db: PrismaLike, service: string): OutboxWriter {
  return {
    async append(event) {
      await db.outboxEvent.create({ data: outboxRow(service, event) });
    },
  };
}

/**
 * The outbox insert for raw-SQL stores (platform/db/sql.ts): the same columns and values as the
 * Prisma writer, as one multi-row `INSERT ... SELECT FROM json_to_recordset(...)` whose parameters
 * are numbered from `$${first}`. A store that must write its own rows and the events in ONE statement
 * (a data-modifying CTE, e.g. ai-broker's usage audit) appends it after its own SQL. The rows travel
 * as one JSON parameter: one native `JSON.stringify` instead of node-postgres escaping every element
 * of seven text arrays (3x less CPU per row, measured in docs/benchmarks.md, Speed pass).
 */
export function outboxInsert(
  service: string,
  events: readonly AuditEventInput[],
  first = 1,
): { text: string; params: unknown[] } {
  const $ = (i: number) => `$${first + i}`;
  return {
    text: `INSERT INTO outbox_events (service, tenant_id, event_type, event_data, user_id, correlation_id, description, idempotency_key, traceparent)
SELECT ${$(0)}::text, e.tenant_id, e.event_type, COALESCE(e.event_data, 'null'::jsonb), e.user_id, e.correlation_id, e.description, e.idempotency_key, ${$(2)}::text
  FROM json_to_recordset(${$(1)}::json)
    AS e(tenant_id text, event_type text, event_data jsonb, user_id text, correlation_id text, description text, idempotency_key text)`,
    params: [
      service,
      JSON.stringify(
        events.map((e) => ({
          tenant_id: e.tenantId,
          event_type: e.eventType,
          event_data: e.eventData ?? null,
          user_id: e.userId,
          correlation_id: e.correlationId,
          description: e.description ?? null,
          idempotency_key: e.idempotencyKey,
        })),
      ),
      currentTraceparent(),
    ],
  };
}

/** Writes with the given raw-SQL client (`q`): inside its transaction, the event commits with the change. */
export function sqlOutboxWriter(q: SqlQuery, service: string): OutboxWriter {
  return {
    async append(event) {
      const { text, params } = outboxInsert(service, [event]);
      await q.query(text, params);
    },
  };
}

/**
 * For events that record something no other write belongs to (a validation run, an AI call):
 * appends that arrive while a write is in flight are committed together as one multi-row insert
 * (platform/db/group-commit.ts), and each append still resolves only once its own row is committed.
 */
export function groupedOutboxWriter(db: PrismaLike, service: string, maxBatch = 500): OutboxWriter {
  const write = groupCommit<Prisma.OutboxEventCreateManyInput>(
    (rows) => db.outboxEvent.createMany({ data: [...rows] }),
    maxBatch,
  );
  return { append: (event) => write(outboxRow(service, event)) };
}

/**
 * An audit event for the outbox. Event data never carries a password, secret or token: only
 * names, ids and counts. A fresh idempotency key per event: the relay retries with it, so the
 * ledger stores each event once.
 */
export function auditEvent(
  caller: Pick<Caller, 'correlationId'>,
  event: { tenantId: string; type: string; actor: string | null; data: Record<string, unknown>; description?: string },
): AuditEventInput {
  return {
    tenantId: event.tenantId,
    eventType: event.type,
    eventData: event.data,
    userId: event.actor,
    correlationId: caller.correlationId,
    description: event.description,
    idempotencyKey: randomUUID(),
  };
}
