// The OIDC provider's stores over Prisma, and a unit of work running them with the outbox in one
// transaction (a client registration or key rotation commits with its audit event).
import type { PrismaClient } from '../../../generated/prisma/client';
import type { PrismaLike } from '../../../platform/db/prisma-like';
import { outboxWriter, type OutboxWriter } from '../../../platform/outbox/outbox.writer';
import { prismaOidcClientStore } from './oidc-client.store';
import { prismaOidcPayloadStore } from './oidc-payload.store';
import type { OidcClientStore, OidcPayloadStore, SigningKeyStore } from './oidc.types';
import { prismaSigningKeyStore } from './signing-key.store';

export interface OidcStores {
  clients: OidcClientStore;
  keys: SigningKeyStore;
  payloads: OidcPayloadStore;
  outbox: OutboxWriter;
}

export interface OidcUnitOfWork extends OidcStores {
  transaction<T>(work: (s: OidcStores) => Promise<T>): Promise<T>;
}

function storesFor(db: PrismaLike): OidcStores {
  return {
    clients: prismaOidcClientStore(db),
    keys: prismaSigningKeyStore(db),
    payloads: prismaOidcPayloadStore(db),
    outbox: outboxWriter(db, 'identity'),
  };
}

export function prismaOidcUnitOfWork(prisma: PrismaClient): OidcUnitOfWork {
  return {
    ...storesFor(prisma),
    transaction: (work) => prisma.$transaction((tx) => work(storesFor(tx)), { timeout: 15_000, maxWait: 10_000 }),
  };
}
