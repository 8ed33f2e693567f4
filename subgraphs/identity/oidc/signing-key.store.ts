// The only code touching `oidc_signing_keys` (platform-wide: keys belong to the issuer, not a tenant).
import type { JWK } from 'jose';
import type { OidcSigningKey } from '../../../generated/prisma/client';
import type { PrismaLike } from '../../../platform/db/prisma-like';
import type { SigningKeyRecord, SigningKeyStore } from './oidc.types';

const toRecord = (row: OidcSigningKey): SigningKeyRecord => ({ ...row, publicJwk: row.publicJwk as JWK });

export function prismaSigningKeyStore(db: PrismaLike): SigningKeyStore {
  return {
    async listLive(now) {
      const rows = await db.oidcSigningKey.findMany({
        where: { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
        orderBy: [{ activatesAt: 'desc' }, { createdAt: 'desc' }],
      });
      return rows.map(toRecord);
    },
    async create(key) {
      await db.oidcSigningKey.create({ data: { ...key, publicJwk: key.publicJwk as object } });
    },
    async retireOthers(keepKid, retiredAt, expiresAt) {
      const { count } = await db.oidcSigningKey.updateMany({
        where: { kid: { not: keepKid }, OR: [{ expiresAt: null }, { expiresAt: { gt: expiresAt } }] },
        data: { retiredAt, expiresAt },
      });
      return count;
    },
  };
}
