// Identity's Prisma stores and transactions on the real database (PGlite, or PostgreSQL when
// DATABASE_URL is set).
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../../platform/errors/domain-errors';
import { DEV_DEFAULTS } from '../../../subgraphs/identity/identity.config';
import { prismaUnitOfWork } from '../../../subgraphs/identity/identity.stores';
import { ALL_TENANTS, type IdentityUnitOfWork } from '../../../subgraphs/identity/identity.types';
import { outboxWriter } from '../../../platform/outbox/outbox.writer';
import { ScryptPasswordHasher } from '../../../subgraphs/identity/password.hasher';
import { seedIdentity } from '../../../subgraphs/identity/seed.service';
import { UserService } from '../../../subgraphs/identity/user.service';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { TenantAccess } from '../../../platform/auth/tenant-access';

jest.setTimeout(60_000);

const hasher = new ScryptPasswordHasher(10);
const seedConfig = { seedDevUsers: true, devAdmin: { ...DEV_DEFAULTS.admin }, devUser: { ...DEV_DEFAULTS.user } };
const rootCtx = {
  auth: {
    username: 'admin',
    tenantId: 'default',
    roles: ['admin', 'user'],
    scopes: ['admin', 'read', 'write'],
    isService: false,
  },
  correlationId: 'it-1',
};

describe('identity stores on a real database', () => {
  let db: TestDatabase;
  let stores: IdentityUnitOfWork;

  beforeAll(async () => {
    db = await createTestDatabase();
    stores = prismaUnitOfWork(db.prisma);
    await seedIdentity(stores, hasher, seedConfig);
    await stores.tenants.create({ id: 'acme', name: 'Acme', metadata: { plan: 'gold' } });
    const [user] = await stores.roles.findByNames(null, ['user']);
    await stores.users.create({
      username: 'acme-1',
      email: 'a1@acme.test',
      passwordHash: 'x',
      tenantId: 'acme',
      isService: false,
      isVerified: false,
      roleIds: [user!.id],
      assignedBy: null,
    });
  });
  afterAll(() => db.drop());

  it('seeds built-in roles, tenant default and the two dev users with scrypt hashes', async () => {
    const roles = await stores.roles.findByNames(null, ['admin', 'user']);
    expect(roles.map((r) => [r.name, r.scopes]).sort()).toEqual([
      ['admin', ['read', 'write', 'admin']],
      ['user', ['read']],
    ]);
    const users = await stores.users.findByUsernames('default', ['admin', 'user']);
    expect(users.map((u) => [u.username, u.roles.map((r) => r.name)]).sort()).toEqual([
      ['admin', ['admin', 'user']],
      ['user', ['user']],
    ]);
    for (const u of users) expect(u.passwordHash).toMatch(/^\$scrypt\$ln=10,/);
    await expect(
      hasher.verify(DEV_DEFAULTS.admin.password, users.find((u) => u.username === 'admin')!.passwordHash),
    ).resolves.toBe(true);
  });

  it('seeding again changes nothing, not even a password an operator changed', async () => {
    await db.prisma.user.updateMany({ where: { username: 'admin' }, data: { passwordHash: 'changed-by-operator' } });
    const report = await seedIdentity(stores, hasher, seedConfig);
    expect(report.created).toEqual([]);
    expect((await db.prisma.user.findFirstOrThrow({ where: { username: 'admin' } })).passwordHash).toBe(
      'changed-by-operator',
    );
    expect(await db.prisma.role.count({ where: { name: { in: ['admin', 'user'] } } })).toBe(2);
  });

  it('reads are confined to the tenant they are given', async () => {
    const acmeUser = (await stores.users.findByUsernames(ALL_TENANTS, ['acme-1']))[0]!;
    expect(await stores.users.findByIds('default', [acmeUser.id])).toEqual([]);
    expect(await stores.users.findByUsernames('default', ['acme-1'])).toEqual([]);
    expect((await stores.users.findByIds('acme', [acmeUser.id])).map((u) => u.username)).toEqual(['acme-1']);
    expect(await stores.users.findForLogin('default', 'acme-1')).toBeNull();
    expect((await stores.users.list('acme', { limit: 10 })).map((u) => u.tenantId)).toEqual(['acme']);
    expect((await stores.users.list('default', { limit: 10 })).every((u) => u.tenantId === 'default')).toBe(true);
    expect((await stores.tenants.list('acme')).map((t) => t.id)).toEqual(['acme']);
    expect((await stores.tenants.findByIds('acme', ['default', 'acme'])).map((t) => t.id)).toEqual(['acme']);
    expect((await stores.tenants.list(ALL_TENANTS)).map((t) => t.id)).toEqual(['acme', 'default']);
    expect(
      await stores.users.assignRole(
        'default',
        acmeUser.id,
        (await stores.roles.findByNames(null, ['admin']))[0]!.id,
        null,
      ),
    ).toBe(false);
  });

  it('unique violations become conflicts', async () => {
    await expect(
      stores.roles.create({ name: 'admin', description: null, scopes: [], tenantId: null }),
    ).rejects.toBeInstanceOf(ConflictError);
    await stores.roles.create({ name: 'acme-editor', description: null, scopes: [], tenantId: 'acme' });
    await expect(
      stores.roles.create({ name: 'acme-editor', description: null, scopes: [], tenantId: 'acme' }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(stores.tenants.create({ id: 'acme', name: 'again', metadata: {} })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(
      stores.users.create({
        username: 'acme-1',
        email: null,
        passwordHash: 'x',
        tenantId: 'acme',
        isService: false,
        isVerified: false,
        roleIds: [],
        assignedBy: null,
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('a failing user creation leaves neither the user nor its event (one transaction)', async () => {
    // The real outbox store, then a failure after it wrote: the transaction must roll both back.
    const failing = prismaUnitOfWork(db.prisma, {
      outbox: (client) => {
        const real = outboxWriter(client, 'identity');
        return {
          append: async (e) => {
            await real.append(e);
            throw new Error('relay table on fire');
          },
        };
      },
    });
    const service = new UserService(failing, hasher, 100, new TenantAccess(async () => {}));
    const before = await db.prisma.outboxEvent.count();
    await expect(service.create(rootCtx, { username: 'ghost-user', password: 'ghost-password' })).rejects.toThrow(
      'relay table on fire',
    );
    expect(await db.prisma.user.count({ where: { username: 'ghost-user' } })).toBe(0);
    expect(await db.prisma.outboxEvent.count()).toBe(before);

    // And the same call with the real outbox commits both.
    await new UserService(stores, hasher, 100, new TenantAccess(async () => {})).create(rootCtx, {
      username: 'real-user',
      password: 'real-password',
    });
    expect(await db.prisma.user.count({ where: { username: 'real-user' } })).toBe(1);
    const event = await db.prisma.outboxEvent.findFirstOrThrow({
      where: { eventType: 'user_created', correlationId: 'it-1' },
    });
    expect(event).toMatchObject({ service: 'identity', tenantId: 'default', userId: 'admin', deliveredAt: null });
    expect(event.eventData).toMatchObject({ username: 'real-user' });
  });

  it('of two concurrent rotations of one refresh token exactly one wins', async () => {
    const user = (await stores.users.findByUsernames('default', ['user']))[0]!;
    const token = await stores.refreshTokens.create({
      userId: user.id,
      tokenHash: randomUUID().replace(/-/g, ''),
      familyId: randomUUID(),
      amr: ['pwd'],
      expiresAt: new Date(Date.now() + 60_000),
    });
    const results = await Promise.all(
      [1, 2, 3].map(() => stores.transaction((s) => s.refreshTokens.markUsed(token.id, new Date()))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await stores.refreshTokens.revokeFamily(token.familyId)).toBe(1);
    expect(await stores.refreshTokens.revokeFamily(token.familyId)).toBe(0);
    expect((await stores.refreshTokens.findByHash(token.tokenHash))!.revoked).toBe(true);
  });
});
