// The only code touching `oidc_payloads`: oidc-provider's models (sessions, interactions, grants,
// codes, tokens) by model and id, so every identity process sees the same state.
import type { PrismaLike } from '../../../platform/db/prisma-like';
import type { OidcPayloadRow, OidcPayloadStore } from './oidc.types';

const select = { payload: true, expiresAt: true, consumedAt: true } as const;

function toRow(
  row: { payload: unknown; expiresAt: Date | null; consumedAt: Date | null } | null,
): OidcPayloadRow | null {
  return row
    ? { payload: row.payload as Record<string, unknown>, expiresAt: row.expiresAt, consumedAt: row.consumedAt }
    : null;
}

export function prismaOidcPayloadStore(db: PrismaLike): OidcPayloadStore {
  return {
    async upsert(model, id, row) {
      const data = { ...row, payload: row.payload as object };
      await db.oidcPayload.upsert({ where: { model_id: { model, id } }, create: { model, id, ...data }, update: data });
    },
    async find(model, id) {
      return toRow(await db.oidcPayload.findUnique({ where: { model_id: { model, id } }, select }));
    },
    async findBy(model, field, value) {
      return toRow(await db.oidcPayload.findFirst({ where: { model, [field]: value }, select }));
    },
    async consume(model, id, at) {
      await db.oidcPayload.updateMany({ where: { model, id }, data: { consumedAt: at } });
    },
    async destroy(model, id) {
      await db.oidcPayload.deleteMany({ where: { model, id } });
    },
    async revokeByGrantId(grantId) {
      await db.oidcPayload.deleteMany({ where: { grantId } });
    },
    // Not tenant data read for a tenant: housekeeping over every tenant's expired rows, which the
    // adapter already treats as absent. Bounded (LIMIT) and SKIP LOCKED, so several identity
    // processes purging at once neither wait on nor double-count each other's rows.
    async purgeExpired(before, limit) {
      return db.$executeRaw`
        DELETE FROM oidc_payloads WHERE (model, id) IN (
          SELECT model, id FROM oidc_payloads
          WHERE expires_at <= ${before}
          ORDER BY expires_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)`;
    },
  };
}
