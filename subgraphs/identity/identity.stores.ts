// Builds identity's stores over Prisma, and the unit of work that runs several of them in one
// interactive transaction (so an audit event commits together with its change).
import type { PrismaClient } from '../../generated/prisma/client';
import type { IdentityStores, IdentityUnitOfWork } from './identity.types';
import { outboxWriter } from '../../platform/outbox/outbox.writer';
import type { PrismaLike } from '../../platform/db/prisma-like';
import { prismaMfaChallengeStore } from './mfa-challenge.store';
import { prismaMfaFactorStore } from './mfa-factor.store';
import { prismaMfaPolicyStore } from './mfa-policy.store';
import { prismaRecoveryCodeStore } from './recovery-code.store';
import { prismaRefreshTokenStore } from './refresh-token.store';
import { prismaRoleStore } from './role.store';
import { prismaTenantStore } from './tenant.store';
import { prismaUserStore } from './user.store';
import { prismaWebauthnChallengeStore } from './webauthn-challenge.store';
import { prismaWebauthnCredentialStore } from './webauthn-credential.store';

export type StoreOverrides = Partial<{ [K in keyof IdentityStores]: (db: PrismaLike) => IdentityStores[K] }>;

function storesFor(db: PrismaLike, overrides: StoreOverrides): IdentityStores {
  return {
    users: (overrides.users ?? prismaUserStore)(db),
    roles: (overrides.roles ?? prismaRoleStore)(db),
    tenants: (overrides.tenants ?? prismaTenantStore)(db),
    refreshTokens: (overrides.refreshTokens ?? prismaRefreshTokenStore)(db),
    mfaFactors: (overrides.mfaFactors ?? prismaMfaFactorStore)(db),
    recoveryCodes: (overrides.recoveryCodes ?? prismaRecoveryCodeStore)(db),
    mfaChallenges: (overrides.mfaChallenges ?? prismaMfaChallengeStore)(db),
    mfaPolicies: (overrides.mfaPolicies ?? prismaMfaPolicyStore)(db),
    webauthnCredentials: (overrides.webauthnCredentials ?? prismaWebauthnCredentialStore)(db),
    webauthnChallenges: (overrides.webauthnChallenges ?? prismaWebauthnChallengeStore)(db),
    outbox: (overrides.outbox ?? ((tx) => outboxWriter(tx, 'identity')))(db),
  };
}

/** `overrides` lets integration tests swap one store (e.g. a failing outbox) over the real database. */
export function prismaUnitOfWork(prisma: PrismaClient, overrides: StoreOverrides = {}): IdentityUnitOfWork {
  return {
    ...storesFor(prisma, overrides),
    transaction: (work) =>
      prisma.$transaction((tx) => work(storesFor(tx, overrides)), { timeout: 15_000, maxWait: 10_000 }),
  };
}
