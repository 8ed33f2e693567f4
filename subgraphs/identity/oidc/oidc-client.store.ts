// The only code touching `oidc_clients`. Listing names the tenant; the provider's lookup by id is
// the one read without it (a client id is what the provider is given, and it learns the tenant from it).
import type { OidcClient } from '../../../generated/prisma/client';
import type { PrismaLike } from '../../../platform/db/prisma-like';
import type { OidcClientRecord, OidcClientStore } from './oidc.types';

const toRecord = (row: OidcClient): OidcClientRecord => ({ ...row });

export function prismaOidcClientStore(db: PrismaLike): OidcClientStore {
  return {
    async create(client) {
      return toRecord(await db.oidcClient.create({ data: client }));
    },
    async findById(clientId) {
      const row = await db.oidcClient.findUnique({ where: { clientId } });
      return row ? toRecord(row) : null;
    },
    async list(tenantId) {
      const rows = await db.oidcClient.findMany({ where: { tenantId }, orderBy: { createdAt: 'asc' } });
      return rows.map(toRecord);
    },
  };
}
