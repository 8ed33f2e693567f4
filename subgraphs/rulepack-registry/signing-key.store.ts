// The only code that reads and writes rulepack_signing_keys. The unique `slot` column ('active' on
// the signing key, null on retired ones) lets processes starting together agree on one key:
// INSERT ... ON CONFLICT DO NOTHING, then everyone reads back the winner.
import type { PrismaClient, RulePackSigningKey } from '../../generated/prisma/client';
import { isUniqueViolation } from '../../platform/db/prisma-like';
import type { SigningKeyRecord, SigningKeyStore } from './rulepack-registry.types';

const ACTIVE = 'active';

function toKey(row: RulePackSigningKey): SigningKeyRecord {
  return {
    kid: row.kid,
    publicKeyX: row.publicKeyX,
    privateKeyPem: row.privateKeyPem,
    active: row.slot === ACTIVE,
    createdAt: row.createdAt,
    retiredAt: row.retiredAt,
  };
}

export function prismaSigningKeyStore(prisma: PrismaClient): SigningKeyStore {
  return {
    async active() {
      const row = await prisma.rulePackSigningKey.findUnique({ where: { slot: ACTIVE } });
      return row ? toKey(row) : null;
    },

    async all() {
      return (await prisma.rulePackSigningKey.findMany({ orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }] })).map(toKey);
    },

    async insertActiveIfNone(key) {
      await prisma.rulePackSigningKey.createMany({ data: [{ ...key, slot: ACTIVE }], skipDuplicates: true });
    },

    async activate(key) {
      const attempt = () =>
        prisma.$transaction(async (tx) => {
          await tx.rulePackSigningKey.updateMany({
            where: { slot: ACTIVE, kid: { not: key.kid } },
            data: { slot: null, retiredAt: new Date() },
          });
          await tx.rulePackSigningKey.upsert({
            where: { kid: key.kid },
            create: { ...key, slot: ACTIVE },
            update: { slot: ACTIVE, retiredAt: null, privateKeyPem: key.privateKeyPem },
          });
        });
      try {
        await attempt();
      } catch (err) {
        // Another process activated a key between our two statements: once more settles it.
        if (!isUniqueViolation(err)) throw err;
        await attempt();
      }
    },

    async retire(kid) {
      await prisma.rulePackSigningKey.updateMany({
        where: { kid, slot: ACTIVE },
        data: { slot: null, retiredAt: new Date() },
      });
    },
  };
}
