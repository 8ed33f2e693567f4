// The MFA stores on the real database: every read and write scoped by tenant (and user), a TOTP
// step recorded once even when two uses race, a recovery code consumed once, challenges used up
// once, and sessions listed per family.
import { randomUUID } from 'node:crypto';
import { DEV_DEFAULTS } from '../../../subgraphs/identity/identity.config';
import { prismaUnitOfWork } from '../../../subgraphs/identity/identity.stores';
import type { IdentityUnitOfWork, UserRecord } from '../../../subgraphs/identity/identity.types';
import { ScryptPasswordHasher } from '../../../subgraphs/identity/password.hasher';
import { seedIdentity } from '../../../subgraphs/identity/seed.service';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(60_000);

describe('MFA stores on a real database', () => {
  let db: TestDatabase;
  let stores: IdentityUnitOfWork;
  let alice: UserRecord;

  beforeAll(async () => {
    db = await createTestDatabase();
    stores = prismaUnitOfWork(db.prisma);
    await seedIdentity(stores, new ScryptPasswordHasher(10), {
      seedDevUsers: true,
      devAdmin: { ...DEV_DEFAULTS.admin },
      devUser: { ...DEV_DEFAULTS.user },
    });
    await stores.tenants.create({ id: 'acme', name: 'Acme', metadata: {} });
    alice = (await stores.users.findByUsernames('default', ['user']))[0]!;
  });
  afterAll(() => db.drop());

  it('a factor is found, confirmed, used and removed only through its own tenant and user', async () => {
    const f = await stores.mfaFactors.create('default', {
      userId: alice.id,
      kind: 'totp',
      label: null,
      secret: 'v1:x',
    });
    expect(await stores.mfaFactors.listForUser('acme', alice.id)).toEqual([]);
    expect(await stores.mfaFactors.confirm('acme', f.id, 10, new Date())).toBe(false);
    expect(await stores.mfaFactors.recordUse('acme', f.id, 11, new Date())).toBe(false);
    expect(await stores.mfaFactors.remove('acme', alice.id, f.id)).toBe(0);
    expect(await stores.mfaFactors.remove('default', randomUUID(), f.id)).toBe(0);
    expect(await stores.mfaFactors.confirm('default', f.id, 10, new Date())).toBe(true);
    expect(await stores.mfaFactors.confirm('default', f.id, 10, new Date())).toBe(false);
    const [listed] = await stores.mfaFactors.listForUser('default', alice.id);
    expect(listed).toMatchObject({ id: f.id, lastUsedStep: 10 });
    expect(listed!.confirmedAt).not.toBeNull();
    expect(await stores.mfaFactors.remove('default', alice.id, f.id)).toBe(1);
  });

  it('of concurrent uses of one TOTP step exactly one wins, and an older step never does', async () => {
    const f = await stores.mfaFactors.create('default', {
      userId: alice.id,
      kind: 'totp',
      label: null,
      secret: 'v1:y',
    });
    await stores.mfaFactors.confirm('default', f.id, 100, new Date());
    const wins = await Promise.all(
      Array.from({ length: 5 }, () =>
        stores.transaction((s) => s.mfaFactors.recordUse('default', f.id, 101, new Date())),
      ),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await stores.mfaFactors.recordUse('default', f.id, 100, new Date())).toBe(false);
    expect(await stores.mfaFactors.recordUse('default', f.id, 102, new Date())).toBe(true);
    await stores.mfaFactors.removeAllForUser('default', alice.id);
  });

  it('a recovery code is consumed once, even concurrently, and only by its own tenant', async () => {
    await stores.recoveryCodes.replace('default', alice.id, ['h1', 'h2']);
    expect(await stores.recoveryCodes.consume('acme', alice.id, 'h1', new Date())).toBe(false);
    const wins = await Promise.all(
      Array.from({ length: 4 }, () =>
        stores.transaction((s) => s.recoveryCodes.consume('default', alice.id, 'h1', new Date())),
      ),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await stores.recoveryCodes.countUnused('default', alice.id)).toBe(1);
    expect(await stores.recoveryCodes.countUnused('acme', alice.id)).toBe(0);
    await stores.recoveryCodes.replace('default', alice.id, ['h3']);
    expect(await stores.recoveryCodes.consume('default', alice.id, 'h2', new Date())).toBe(false);
  });

  it('a challenge is used up once', async () => {
    const c = await stores.mfaChallenges.create({
      tenantId: 'default',
      userId: alice.id,
      tokenHash: randomUUID(),
      purpose: 'verify',
      amr: ['pwd'],
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(await stores.mfaChallenges.recordAttempt(c.id)).toBe(1);
    const wins = await Promise.all(
      Array.from({ length: 4 }, () => stores.transaction((s) => s.mfaChallenges.consume(c.id, new Date()))),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('sessions: one per live family, scoped by tenant; revoking through another tenant does nothing', async () => {
    const now = new Date();
    const family = randomUUID();
    const later = new Date(now.getTime() + 86_400_000);
    const first = await stores.refreshTokens.create({
      userId: alice.id,
      tokenHash: randomUUID(),
      familyId: family,
      amr: ['pwd', 'otp'],
      expiresAt: later,
    });
    await stores.refreshTokens.markUsed(first.id, now);
    await stores.refreshTokens.create({
      userId: alice.id,
      tokenHash: randomUUID(),
      familyId: family,
      amr: ['pwd', 'otp'],
      expiresAt: later,
    });
    const dead = randomUUID();
    const used = await stores.refreshTokens.create({
      userId: alice.id,
      tokenHash: randomUUID(),
      familyId: dead,
      amr: ['pwd'],
      expiresAt: later,
    });
    await stores.refreshTokens.markUsed(used.id, now);
    const sessions = await stores.refreshTokens.listSessions('default', alice.id, now);
    expect(sessions.filter((s) => s.id === family)).toEqual([expect.objectContaining({ amr: ['pwd', 'otp'] })]);
    expect(sessions.some((s) => s.id === dead)).toBe(false);
    expect(await stores.refreshTokens.listSessions('acme', alice.id, now)).toEqual([]);
    expect(await stores.refreshTokens.revokeUserFamily('acme', alice.id, family)).toBe(0);
    expect(await stores.refreshTokens.revokeAllForUser('acme', alice.id)).toBe(0);
    expect(await stores.refreshTokens.revokeUserFamily('default', alice.id, family)).toBe(2); // both tokens of the family
    expect((await stores.refreshTokens.listSessions('default', alice.id, now)).some((s) => s.id === family)).toBe(
      false,
    );
  });

  it('a tenant policy is stored per tenant', async () => {
    expect(await stores.mfaPolicies.get('acme')).toBeNull();
    await stores.mfaPolicies.set('acme', ['admin', 'user'], 'acme-admin');
    expect(await stores.mfaPolicies.get('acme')).toMatchObject({
      requiredRoles: ['admin', 'user'],
      updatedBy: 'acme-admin',
    });
    expect(await stores.mfaPolicies.get('default')).toBeNull();
  });
});
