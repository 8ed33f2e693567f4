import { AccessTokens } from '../../../platform/auth/jwt';
import { AuthenticationError } from '../../../platform/errors/domain-errors';
import { AuthService } from '../../../subgraphs/identity/auth.service';
import { LoginThrottle, memoryThrottleStore } from '../../../subgraphs/identity/login.throttle';
import { ALL_TENANTS, type RefreshTokenRecord, type TenantRecord } from '../../../subgraphs/identity/identity.types';
import { hashRefreshToken } from '../../../subgraphs/identity/refresh-token.crypto';
import { CachedTokenVerifier } from '../../../subgraphs/identity/token.verifier';
import { fakeHasher, fakeUnitOfWork, ROLE_ADMIN, ROLE_USER, userRecord, type FakeStores } from './fakes';

const SECRET = 'unit-test-secret-that-is-long-enough-0123456789';
const NOW = new Date('2026-06-01T12:00:00Z');
const ctx = { correlationId: 'corr-1' };
const TENANT: TenantRecord = { id: 'default', name: 'Default', createdAt: new Date(0), isActive: true, metadata: {} };

function build(fakes: FakeStores, lifetimeSeconds = 86_400, clock = { ms: NOW.getTime() }) {
  const stores = fakeUnitOfWork(fakes);
  const hasher = fakeHasher();
  const tokens = new AccessTokens(SECRET, lifetimeSeconds);
  const throttle = new LoginThrottle(
    memoryThrottleStore(100, () => clock.ms),
    { allowed: 3, windowMs: 60_000, baseLockMs: 1_000, maxLockMs: 8_000 },
    () => clock.ms,
  );
  const service = new AuthService({
    stores,
    hasher,
    tokens,
    verifier: new CachedTokenVerifier(tokens, 10),
    refreshTokenDays: 7,
    throttle,
    now: () => NOW,
  });
  return { stores, hasher, tokens, service };
}

function decode(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

const tenantsFound = (tenants: TenantRecord[] = [TENANT]) => ({
  findByIds: async (_s: unknown, ids: readonly string[]) => tenants.filter((t) => ids.includes(t.id)),
});

describe('AuthService.login', () => {
  it("issues an access token with exactly the spec's claims and a stored-hashed refresh token, events in one transaction", async () => {
    const created: { tokenHash: string; expiresAt: Date }[] = [];
    const recorded: string[] = [];
    const { service, stores } = build({
      users: {
        findForLogin: async (tenantId, username) =>
          tenantId === 'default' && username === 'alice' ? userRecord({ roles: [ROLE_ADMIN, ROLE_USER] }) : null,
        recordLogin: async (_t, id) => void recorded.push(id),
      },
      tenants: tenantsFound(),
      refreshTokens: {
        create: async (t) => (created.push(t), { ...t, id: 'r1', createdAt: NOW, revoked: false, usedAt: null }),
      },
    });
    const pair = await service.login(ctx, { username: 'alice', password: 'correct-password', tenantId: 'default' });
    expect(pair.tokenType).toBe('bearer');
    expect(pair.expiresIn).toBe(86_400);
    const claims = decode(pair.accessToken);
    // Spec 01's claims, plus how the sign-in was made (amr, acr) and its session (sid).
    expect(Object.keys(claims).sort()).toEqual([
      'acr',
      'amr',
      'exp',
      'iat',
      'iss',
      'roles',
      'scopes',
      'sid',
      'sub',
      'tenant_id',
    ]);
    expect(claims).toMatchObject({ amr: ['pwd'], acr: 'aal1' });
    expect(claims).toMatchObject({
      sub: 'alice',
      tenant_id: 'default',
      roles: ['admin', 'user'],
      scopes: ['admin', 'read', 'write'],
      iss: 'platform-identity',
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(86_400);
    expect(created).toHaveLength(1);
    expect(created[0]!.tokenHash).toBe(hashRefreshToken(pair.refreshToken));
    expect(created[0]!.tokenHash).not.toContain(pair.refreshToken);
    expect(created[0]!.expiresAt.getTime() - NOW.getTime()).toBe(7 * 86_400_000);
    expect(recorded).toEqual([userRecord().id]);
    expect(stores.transactions).toBe(1);
    expect(stores.eventsInTransaction.map((e) => e.eventType)).toEqual(['auth_login_succeeded', 'token_issued']);
    expect(stores.events[0]).toMatchObject({ tenantId: 'default', userId: 'alice', correlationId: 'corr-1' });
    expect(JSON.stringify(stores.events)).not.toContain('correct-password');
    expect(JSON.stringify(stores.events)).not.toContain(pair.refreshToken);
  });

  it('reports expires_in from the configured lifetime', async () => {
    const { service } = build(
      {
        users: { findForLogin: async () => userRecord(), recordLogin: async () => {} },
        tenants: tenantsFound(),
        refreshTokens: { create: async (t) => ({ ...t, id: 'r', createdAt: NOW, revoked: false, usedAt: null }) },
      },
      15 * 60,
    );
    expect(
      (await service.login(ctx, { username: 'alice', password: 'correct-password', tenantId: 'default' })).expiresIn,
    ).toBe(900);
  });

  const failures: [string, FakeStores['users'], string][] = [
    ['wrong password', { findForLogin: async () => userRecord() }, 'bad_credentials'],
    ['unknown user', { findForLogin: async () => null }, 'unknown_user'],
    ['inactive user', { findForLogin: async () => userRecord({ isActive: false }) }, 'inactive_user'],
    [
      'service account',
      { findForLogin: async () => userRecord({ isService: true, passwordHash: 'hashed:wrong' }) },
      'not_a_person',
    ],
  ];
  it.each(failures)(
    '%s: the same AuthenticationError, a failure event written alone, no token',
    async (_name, users, reason) => {
      const { service, stores, hasher } = build({ users, tenants: tenantsFound() });
      const password = reason === 'not_a_person' ? 'wrong' : reason === 'bad_credentials' ? 'nope' : 'correct-password';
      const err = await service
        .login(ctx, { username: 'alice', password, tenantId: 'default' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as Error).message).toBe('Could not validate credentials');
      expect(stores.transactions).toBe(0);
      expect(stores.events).toHaveLength(1);
      expect(stores.events[0]).toMatchObject({ eventType: 'auth_login_failed', userId: 'alice', tenantId: 'default' });
      expect(stores.events[0]!.eventData).toMatchObject({ reason });
      // every path hashes once, so timing does not tell them apart
      expect(hasher.verifyCalls + hasher.dummyCalls).toBeGreaterThanOrEqual(1);
      if (reason === 'unknown_user') expect(hasher.dummyCalls).toBe(1);
    },
  );

  it('wrong tenant: the user is looked up only in the requested tenant, and an unknown tenant is logged under default', async () => {
    const asked: string[] = [];
    const { service, stores } = build({
      users: { findForLogin: async (tenantId) => (asked.push(tenantId), null) },
      tenants: tenantsFound(),
    });
    await expect(
      service.login(ctx, { username: 'alice', password: 'correct-password', tenantId: 'nope' }),
    ).rejects.toBeInstanceOf(AuthenticationError);
    expect(asked).toEqual(['nope']);
    expect(stores.events[0]).toMatchObject({
      tenantId: 'default',
      eventData: { requested_tenant_id: 'nope', reason: 'unknown_user' },
    });
  });

  it('an inactive tenant cannot log in', async () => {
    const { service } = build({
      users: { findForLogin: async () => userRecord() },
      tenants: tenantsFound([{ ...TENANT, isActive: false }]),
    });
    await expect(
      service.login(ctx, { username: 'alice', password: 'correct-password', tenantId: 'default' }),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('AuthService.refresh', () => {
  const token = 'opaque-refresh-token';
  const record = (over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
    id: 'rt-1',
    userId: userRecord().id,
    tokenHash: hashRefreshToken(token),
    familyId: 'fam-1',
    expiresAt: new Date(NOW.getTime() + 1000),
    createdAt: NOW,
    revoked: false,
    usedAt: null,
    amr: ['pwd'],
    ...over,
  });

  it('rotates: marks the old token used, issues a new pair in the same family', async () => {
    const created: { familyId: string }[] = [];
    const { service, stores } = build({
      refreshTokens: {
        findByHash: async (h) => (h === hashRefreshToken(token) ? record() : null),
        markUsed: async (id) => id === 'rt-1',
        create: async (t) => (created.push(t), { ...t, id: 'rt-2', createdAt: NOW, revoked: false, usedAt: null }),
      },
      users: {
        findByIds: async (scope, ids) => (scope === ALL_TENANTS && ids[0] === userRecord().id ? [userRecord()] : []),
      },
      tenants: tenantsFound(),
    });
    const pair = await service.refresh(ctx, token);
    expect(pair.refreshToken).not.toBe(token);
    expect(created).toEqual([expect.objectContaining({ familyId: 'fam-1' })]);
    expect(stores.eventsInTransaction.map((e) => e.eventType)).toEqual(['token_refreshed']);
  });

  it('a reused (already rotated) token revokes its family, commits that, and fails', async () => {
    const revoked: string[] = [];
    const { service, stores } = build({
      refreshTokens: {
        findByHash: async () => record({ usedAt: NOW }),
        revokeFamily: async (f) => (revoked.push(f), 1),
      },
      users: { findByIds: async () => [userRecord()] },
    });
    await expect(service.refresh(ctx, token)).rejects.toBeInstanceOf(AuthenticationError);
    expect(revoked).toEqual(['fam-1']);
    expect(stores.eventsInTransaction).toEqual([
      expect.objectContaining({
        eventType: 'token_revoked',
        eventData: expect.objectContaining({ reason: 'reuse_detected' }),
      }),
    ]);
  });

  it('losing a race to rotate the same token counts as reuse', async () => {
    const revoked: string[] = [];
    const { service } = build({
      refreshTokens: {
        findByHash: async () => record(),
        markUsed: async () => false,
        revokeFamily: async (f) => (revoked.push(f), 1),
      },
      users: { findByIds: async () => [userRecord()] },
    });
    await expect(service.refresh(ctx, token)).rejects.toBeInstanceOf(AuthenticationError);
    expect(revoked).toEqual(['fam-1']);
  });

  it.each([
    ['unknown', null],
    ['revoked', record({ revoked: true })],
  ])('%s token fails without side effects', async (_n, rec) => {
    const { service, stores } = build({
      refreshTokens: { findByHash: async () => rec },
      users: { findByIds: async () => [userRecord()] },
    });
    await expect(service.refresh(ctx, token)).rejects.toBeInstanceOf(AuthenticationError);
    expect(stores.events).toEqual([]);
  });

  it('an expired token fails without touching the family', async () => {
    const { service } = build({
      refreshTokens: { findByHash: async () => record({ expiresAt: new Date(NOW.getTime() - 1) }) },
      users: { findByIds: async () => [userRecord()] },
    });
    await expect(service.refresh(ctx, token)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('an inactive user cannot refresh', async () => {
    const { service } = build({
      refreshTokens: { findByHash: async () => record() },
      users: { findByIds: async () => [userRecord({ isActive: false })] },
    });
    await expect(service.refresh(ctx, token)).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('AuthService.revoke', () => {
  it('revokes the family of a known token and records it', async () => {
    const { service, stores } = build({
      refreshTokens: {
        findByHash: async () => ({
          id: 'r',
          userId: userRecord().id,
          tokenHash: 'h',
          familyId: 'fam',
          expiresAt: NOW,
          createdAt: NOW,
          amr: ['pwd'],
          revoked: false,
          usedAt: null,
        }),
        revokeFamily: async () => 2,
      },
      users: { findByIds: async () => [userRecord()] },
    });
    await service.revoke(ctx, 'tok');
    expect(stores.eventsInTransaction).toEqual([
      expect.objectContaining({
        eventType: 'token_revoked',
        eventData: expect.objectContaining({ reason: 'logout', revoked_count: 2 }),
      }),
    ]);
  });

  it('accepts an unknown token silently', async () => {
    const { service, stores } = build({ refreshTokens: { findByHash: async () => null } });
    await expect(service.revoke(ctx, 'nope')).resolves.toBeUndefined();
    expect(stores.events).toEqual([]);
  });
});

describe('AuthService.serviceToken', () => {
  const account = userRecord({
    username: 'billing',
    isService: true,
    passwordHash: 'hashed:client-secret',
    roles: [{ ...ROLE_USER, name: 'service:billing', scopes: ['read', 'write'] }],
  });

  it('issues a token with service roles and scopes, no refresh token', async () => {
    const { service, stores } = build({
      users: {
        findServiceAccount: async (clientId) => (clientId === 'billing' ? account : null),
        recordLogin: async () => {},
      },
    });
    const token = await service.serviceToken(ctx, { clientId: 'billing', clientSecret: 'client-secret' });
    expect(decode(token.accessToken)).toMatchObject({
      sub: 'billing',
      roles: ['service:billing'],
      scopes: ['read', 'write'],
    });
    expect(token).not.toHaveProperty('refreshToken');
    expect(stores.eventsInTransaction.map((e) => e.eventType)).toEqual(['service_token_issued']);
  });

  it("refuses a person's credentials and a wrong secret alike", async () => {
    // A person is never a service account (the store looks up service accounts only).
    const { service } = build({ users: { findServiceAccount: async () => null } });
    await expect(service.serviceToken(ctx, { clientId: 'alice', clientSecret: 'pw' })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    const b = build({ users: { findServiceAccount: async () => account } });
    await expect(b.service.serviceToken(ctx, { clientId: 'billing', clientSecret: 'wrong' })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    expect(b.stores.events[0]).toMatchObject({
      eventType: 'auth_login_failed',
      eventData: expect.objectContaining({ grant: 'client_credentials' }),
    });
  });
});

describe('login throttling', () => {
  it('after the allowance, an account is locked with doubling backoff: no hash, no audit event per attempt; others unaffected', async () => {
    const clock = { ms: NOW.getTime() };
    const alice = userRecord({ passwordHash: 'hashed:right' });
    const { service, stores, hasher } = build(
      {
        users: {
          findForLogin: async (_t, u) => (u === 'alice' || u === 'bob' ? { ...alice, username: u } : null),
          recordLogin: async () => {},
        },
        tenants: tenantsFound(),
        refreshTokens: { create: async (t) => ({ ...t, id: 'r', createdAt: NOW, revoked: false, usedAt: null }) },
      },
      86_400,
      clock,
    );
    const attempt = (username: string, password: string) =>
      service.login(ctx, { username, password, tenantId: 'default' });
    for (let i = 0; i < 3; i++) await expect(attempt('alice', 'wrong')).rejects.toBeInstanceOf(AuthenticationError);
    // The fourth failure starts a lockout of 1 s, recorded once.
    await expect(attempt('alice', 'wrong')).rejects.toBeInstanceOf(AuthenticationError);
    expect(stores.events.at(-1)).toMatchObject({
      eventType: 'auth_login_failed',
      eventData: expect.objectContaining({ locked_for_seconds: 1 }),
    });
    const events = stores.events.length;
    const hashes = hasher.verifyCalls + hasher.dummyCalls;
    await expect(attempt('alice', 'right')).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect(stores.events.length).toBe(events);
    expect(hasher.verifyCalls + hasher.dummyCalls).toBe(hashes);
    // Another account of the tenant logs in meanwhile.
    await expect(attempt('bob', 'right')).resolves.toMatchObject({ tokenType: 'bearer' });
    // After the lockout the next failure doubles it; a success clears everything.
    clock.ms += 1_001;
    await expect(attempt('alice', 'wrong')).rejects.toBeInstanceOf(AuthenticationError);
    expect(stores.events.at(-1)).toMatchObject({ eventData: expect.objectContaining({ locked_for_seconds: 2 }) });
    clock.ms += 2_001;
    await expect(attempt('alice', 'right')).resolves.toMatchObject({ tokenType: 'bearer' });
    await expect(attempt('alice', 'wrong')).rejects.toBeInstanceOf(AuthenticationError);
    await expect(attempt('alice', 'right')).resolves.toMatchObject({ tokenType: 'bearer' });
  });
});
