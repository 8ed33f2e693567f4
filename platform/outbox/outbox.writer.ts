// The producer side of the transactional outbox (`outbox_events`), shared by every service that
// writes audit events: called with the transaction's client, so an event commits or rolls back
// with the change it records; the relay (outbox-relay.ts) delivers it to the ledger.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../auth/caller';
import type { PrismaLike } from '../db/prisma-like';

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

function outboxRow(service: string, event: AuditEventInput): Prisma.OutboxEventCreateManyInput {
  return {
    service,
    tenantId: event.tenantId,
    eventType: event.eventType,
    eventData: event.eventData as Prisma.InputJsonObject,
    userId: event.userId,
    correlationId: event.correlationId,
    description: event.description ?? null,
    idempotencyKey: event.idempotencyKey,
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
 * For events that record something no other write belongs to (a validation run, an AI call):
 * appends that arrive while a write is in flight are committed together as one multi-row insert
 * (group commit), and each append still resolves only once its own row is committed. A lone
 * append is written at once, so nothing waits for a batch to fill.
 */
export function groupedOutboxWriter(db: PrismaLike, service: string, maxBatch = 500): OutboxWriter {
  let pending: { row: Prisma.OutboxEventCreateManyInput; resolve(): void; reject(err: unknown): void }[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    try {
      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch);
        pending = pending.slice(batch.length);
        try {
          await db.outboxEvent.createMany({ data: batch.map((b) => b.row) });
          for (const b of batch) b.resolve();
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      writing = false;
    }
  };
  return {
    append(event) {
      return new Promise<void>((resolve, reject) => {
        pending.push({ row: outboxRow(service, event), resolve, reject });
        if (!writing) void drain();
      });
    },
  };
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
