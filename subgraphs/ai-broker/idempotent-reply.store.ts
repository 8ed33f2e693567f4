// ai_idempotent_replies: the answers of requests made with an Idempotency-Key, per tenant. A key is
// claimed before the model runs (`running`, for as long as a request may take), then holds the
// answer (`done`, for the replay window); an expired row is claimed afresh.
import type { PrismaClient } from '../../generated/prisma/client';

export type Claim<T> =
  { state: 'claimed' } | { state: 'done'; response: T } | { state: 'running' } | { state: 'other-request' };

export interface IdempotentReplyStore<T> {
  claim(tenantId: string, key: string, requestHash: string, runningMs: number): Promise<Claim<T>>;
  complete(tenantId: string, key: string, response: T, keepMs: number): Promise<void>;
  /** The request failed: the key is free for a retry. */
  release(tenantId: string, key: string): Promise<void>;
}

export function prismaIdempotentReplyStore<T>(prisma: PrismaClient): IdempotentReplyStore<T> {
  return {
    async claim(tenantId, key, requestHash, runningMs) {
      const until = new Date(Date.now() + runningMs);
      // One statement: a new key, or an expired one, is taken; a live one is left as it is.
      const taken = await prisma.$queryRaw<{ taken: boolean }[]>`
        INSERT INTO ai_idempotent_replies (tenant_id, idempotency_key, request_hash, status, expires_at)
        VALUES (${tenantId}, ${key}, ${requestHash}, 'running', ${until})
        ON CONFLICT (tenant_id, idempotency_key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, status = 'running', response = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE ai_idempotent_replies.expires_at <= now()
        RETURNING true AS taken`;
      if (taken.length > 0) return { state: 'claimed' };
      const row = await prisma.aiIdempotentReply.findUnique({
        where: { tenantId_idempotencyKey: { tenantId, idempotencyKey: key } },
      });
      if (!row) return this.claim(tenantId, key, requestHash, runningMs);
      if (row.requestHash.trim() !== requestHash) return { state: 'other-request' };
      return row.status === 'done' ? { state: 'done', response: row.response as T } : { state: 'running' };
    },
    async complete(tenantId, key, response, keepMs) {
      await prisma.aiIdempotentReply.updateMany({
        where: { tenantId, idempotencyKey: key, status: 'running' },
        data: { status: 'done', response: response as never, expiresAt: new Date(Date.now() + keepMs) },
      });
    },
    async release(tenantId, key) {
      await prisma.aiIdempotentReply.deleteMany({ where: { tenantId, idempotencyKey: key, status: 'running' } });
    },
  };
}
