// The only code that reads and writes `webauthn_credentials`. Every read names the tenant, and the
// user where one is meant, so another tenant's or another user's credential finds nothing.
import type { WebauthnCredential } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { WebauthnCredentialRecord, WebauthnCredentialStore } from './webauthn.types';

function toRecord(row: WebauthnCredential): WebauthnCredentialRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    userId: row.userId,
    factorId: row.factorId,
    credentialId: row.credentialId,
    publicKey: new Uint8Array(row.publicKey),
    signCount: Number(row.signCount),
    transports: row.transports,
    deviceType: row.deviceType === 'multiDevice' ? 'multiDevice' : 'singleDevice',
    backedUp: row.backedUp,
    createdAt: row.createdAt,
  };
}

export function prismaWebauthnCredentialStore(db: PrismaLike): WebauthnCredentialStore {
  return {
    async create(tenantId, c) {
      const row = await db.webauthnCredential.create({
        data: {
          tenantId,
          userId: c.userId,
          factorId: c.factorId,
          credentialId: c.credentialId,
          publicKey: Buffer.from(c.publicKey),
          signCount: BigInt(c.signCount),
          transports: c.transports,
          deviceType: c.deviceType,
          backedUp: c.backedUp,
        },
      });
      return toRecord(row);
    },
    async listForUser(tenantId, userId) {
      const rows = await db.webauthnCredential.findMany({ where: { tenantId, userId }, orderBy: { createdAt: 'asc' } });
      return rows.map(toRecord);
    },
    async exists(tenantId, credentialId) {
      return (await db.webauthnCredential.count({ where: { tenantId, credentialId } })) > 0;
    },
    async recordSignCount(tenantId, id, signCount) {
      const next = BigInt(signCount);
      const { count } = await db.webauthnCredential.updateMany({
        where: { tenantId, id, OR: [{ signCount: { lt: next } }, ...(signCount === 0 ? [{ signCount: 0n }] : [])] },
        data: { signCount: next },
      });
      return count === 1;
    },
  };
}
