// Strict fakes of identity's stores: a fake fails on any call it was not told to expect, so a
// unit test also catches queries the rule should not make.
import type { AuthContext } from '../../../platform/auth/auth-context';
import type {
  AuditEventInput as OutboxEventInput,
  OutboxWriter as OutboxStore,
} from '../../../platform/outbox/outbox.writer';
import { strictFake } from '../../support/strict-fake';
import type {
  IdentityStores,
  IdentityUnitOfWork,
  RefreshTokenStore,
  RoleRecord,
  RoleStore,
  TenantStore,
  UserRecord,
  UserStore,
} from '../../../subgraphs/identity/identity.types';
import type {
  MfaChallengeStore,
  MfaFactorStore,
  MfaPolicyStore,
  RecoveryCodeStore,
} from '../../../subgraphs/identity/mfa.types';
import type { PasswordHasher } from '../../../subgraphs/identity/password.hasher';
import type { WebauthnChallengeStore, WebauthnCredentialStore } from '../../../subgraphs/identity/webauthn.types';

export interface FakeStores {
  users?: Partial<UserStore>;
  roles?: Partial<RoleStore>;
  tenants?: Partial<TenantStore>;
  refreshTokens?: Partial<RefreshTokenStore>;
  mfaFactors?: Partial<MfaFactorStore>;
  recoveryCodes?: Partial<RecoveryCodeStore>;
  mfaChallenges?: Partial<MfaChallengeStore>;
  mfaPolicies?: Partial<MfaPolicyStore>;
  webauthnCredentials?: Partial<WebauthnCredentialStore>;
  webauthnChallenges?: Partial<WebauthnChallengeStore>;
  outbox?: Partial<OutboxStore>;
}

/** A unit of work over strict fakes; `transaction` records that it ran and passes the same fakes. */
export function fakeUnitOfWork(
  fakes: FakeStores,
): IdentityUnitOfWork & { transactions: number; events: OutboxEventInput[]; eventsInTransaction: OutboxEventInput[] } {
  const events: OutboxEventInput[] = [];
  const eventsInTransaction: OutboxEventInput[] = [];
  let inTransaction = false;
  const outbox = strictFake<OutboxStore>({
    ...fakes.outbox,
    append: async (e) => {
      events.push(e);
      if (inTransaction) eventsInTransaction.push(e);
    },
  });
  const stores: IdentityStores = {
    users: strictFake<UserStore>(fakes.users ?? {}, 'users'),
    roles: strictFake<RoleStore>(fakes.roles ?? {}, 'roles'),
    tenants: strictFake<TenantStore>(fakes.tenants ?? {}, 'tenants'),
    refreshTokens: strictFake<RefreshTokenStore>(fakes.refreshTokens ?? {}, 'refreshTokens'),
    mfaFactors: strictFake<MfaFactorStore>(fakes.mfaFactors ?? {}, 'mfaFactors'),
    recoveryCodes: strictFake<RecoveryCodeStore>(fakes.recoveryCodes ?? {}, 'recoveryCodes'),
    mfaChallenges: strictFake<MfaChallengeStore>(fakes.mfaChallenges ?? {}, 'mfaChallenges'),
    mfaPolicies: strictFake<MfaPolicyStore>(fakes.mfaPolicies ?? {}, 'mfaPolicies'),
    webauthnCredentials: strictFake<WebauthnCredentialStore>(fakes.webauthnCredentials ?? {}, 'webauthnCredentials'),
    webauthnChallenges: strictFake<WebauthnChallengeStore>(fakes.webauthnChallenges ?? {}, 'webauthnChallenges'),
    outbox,
  };
  const uow = {
    ...stores,
    transactions: 0,
    events,
    eventsInTransaction,
    async transaction<T>(work: (s: IdentityStores) => Promise<T>): Promise<T> {
      uow.transactions += 1;
      inTransaction = true;
      try {
        return await work(stores);
      } finally {
        inTransaction = false;
      }
    },
  };
  return uow;
}

/** A hasher where the hash of `p` is `hashed:p`; records dummy verifications. */
export function fakeHasher(): PasswordHasher & { dummyCalls: number; verifyCalls: number } {
  const h = {
    dummyCalls: 0,
    verifyCalls: 0,
    async hash(p: string) {
      return `hashed:${p}`;
    },
    async verify(p: string, stored: string) {
      h.verifyCalls += 1;
      return stored === `hashed:${p}`;
    },
    async verifyDummy() {
      h.dummyCalls += 1;
    },
  };
  return h;
}

export const ROLE_ADMIN: RoleRecord = {
  id: '00000000-0000-4000-8000-00000000000a',
  name: 'admin',
  description: null,
  scopes: ['read', 'write', 'admin'],
  createdAt: new Date(0),
  tenantId: null,
};
export const ROLE_USER: RoleRecord = {
  id: '00000000-0000-4000-8000-00000000000b',
  name: 'user',
  description: null,
  scopes: ['read'],
  createdAt: new Date(0),
  tenantId: null,
};

export function userRecord(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    username: 'alice',
    email: 'alice@example.com',
    passwordHash: 'hashed:correct-password',
    tenantId: 'default',
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:00:00Z'),
    lastLogin: null,
    isActive: true,
    isVerified: true,
    isService: false,
    roles: [ROLE_USER],
    ...overrides,
  };
}

export function caller(overrides: Partial<AuthContext> = {}): AuthContext {
  return {
    username: 'root',
    tenantId: 'default',
    roles: ['admin', 'user'],
    scopes: ['admin', 'read', 'write'],
    isService: false,
    ...overrides,
  };
}

/** A platform operator (role platform-admin, home tenant `platform`). */
export const operator = () => caller({ username: 'op', tenantId: 'platform', roles: ['platform-admin'] });
export const tenantAdmin = (tenantId: string) => caller({ username: `${tenantId}-admin`, tenantId });
export const plainUser = (tenantId = 'default') =>
  caller({ username: 'bob', tenantId, roles: ['user'], scopes: ['read'] });
