// Writes identity's audit events to the shared transactional outbox (`outbox_events`); the
// ledger relay delivers them. Called with the transaction's client so the event commits or rolls
// back with the change it records.
import type { Prisma } from '../../generated/prisma/client';
import type { PrismaLike } from './prisma-client';
import type { OutboxStore } from './identity.types';

export const OUTBOX_SERVICE = 'identity';

export function prismaOutboxStore(db: PrismaLike): OutboxStore {
  return {
    async append(event) {
      await db.outboxEvent.create({
        data: {
          service: OUTBOX_SERVICE,
          tenantId: event.tenantId,
          eventType: event.eventType,
          eventData: event.eventData as Prisma.InputJsonObject,
          userId: event.userId,
          correlationId: event.correlationId,
          description: event.description ?? null,
          idempotencyKey: event.idempotencyKey,
        },
      });
    },
  };
}
