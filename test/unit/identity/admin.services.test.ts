import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  AuthenticationError,
} from '../../../platform/errors/domain-errors';
import { ALL_TENANTS, type TenantRecord, type TenantScope } from '../../../subgraphs/identity/identity.types';
import { RoleService } from '../../../subgraphs/identity/role.service';
import { ServiceAccountService } from '../../../subgraphs/identity/service-account.service';
import { TenantService } from '../../../subgraphs/identity/tenant.service';
import { UserService } from '../../../subgraphs/identity/user.service';
import {
  caller,
  fakeHasher,
  fakeUnitOfWork,
  operator,
  plainUser,
  ROLE_ADMIN,
  ROLE_USER,
  tenantAdmin,
  userRecord,
} from './fakes';
import { TenantAccess } from '../../../platform/auth/tenant-access';

const ctxOf = (auth = caller()) => ({ auth, correlationId: 'c-1' });
/** The platform operator; `ctxOf()` is the default tenant's admin, who stays in its tenant. */
const op = () => ctxOf(operator());
const tenant = (id: string): TenantRecord => ({ id, name: id, createdAt: new Date(0), isActive: true, metadata: {} });

describe('RoleService.create', () => {
  it('creates a role and its event in one transaction', async () => {
    const stores = fakeUnitOfWork({
      roles: { findByNames: async () => [], create: async (r) => ({ ...r, id: 'r', createdAt: new Date(0) }) },
    });
    const role = await new RoleService(stores, new TenantAccess(async () => {})).create(ctxOf(), {
      name: 'auditor',
      scopes: ['read', 'read', 'audit:read'],
    });
    expect(role.scopes).toEqual(['read', 'audit:read']);
    expect(stores.eventsInTransaction).toEqual([
      expect.objectContaining({
        eventType: 'role_created',
        userId: 'root',
        eventData: { role_name: 'auditor', scopes: ['read', 'audit:read'], scope: 'tenant' },
      }),
    ]);
  });

  it('refuses non-admins before touching a store', async () => {
    await expect(
      new RoleService(fakeUnitOfWork({}), new TenantAccess(async () => {})).create(ctxOf(plainUser()), { name: 'x' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      new RoleService(fakeUnitOfWork({}), new TenantAccess(async () => {})).create(
        { correlationId: 'c' },
        { name: 'x' },
      ),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('refuses a name over 100 characters, the service: namespace and bad scopes', async () => {
    const s = new RoleService(fakeUnitOfWork({}), new TenantAccess(async () => {}));
    await expect(s.create(ctxOf(), { name: 'r'.repeat(101) })).rejects.toMatchObject({
      issues: [{ loc: ['role_name'], type: 'string_too_long' }],
    });
    await expect(s.create(ctxOf(), { name: 'service:x' })).rejects.toBeInstanceOf(InputError);
    await expect(s.create(ctxOf(), { name: 'ok', scopes: ['has space'] })).rejects.toBeInstanceOf(InputError);
  });

  it('409 on a duplicate', async () => {
    const stores = fakeUnitOfWork({ roles: { findByNames: async () => [ROLE_USER] } });
    await expect(
      new RoleService(stores, new TenantAccess(async () => {})).create(ctxOf(), { name: 'user' }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(stores.events).toEqual([]);
  });
});

describe('RoleService: tenant roles', () => {
  it('a tenant admin creates a role of its own tenant; an operator a platform role unless it names a tenant', async () => {
    const created: { tenantId: string | null }[] = [];
    const scopes: unknown[] = [];
    const stores = () =>
      fakeUnitOfWork({
        roles: {
          findByNames: async (scope) => (scopes.push(scope), []),
          create: async (r) => (created.push(r), { ...r, id: 'r', createdAt: new Date(0) }),
        },
      });
    const roles = (s: ReturnType<typeof stores>) => new RoleService(s, new TenantAccess(async () => {}));
    await roles(stores()).create(ctxOf(tenantAdmin('acme')), { name: 'acme-editor' });
    await expect(
      roles(stores()).create(ctxOf(tenantAdmin('acme')), { name: 'x-editor', tenantId: 'globex' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await roles(stores()).create(op(), { name: 'auditor' });
    await roles(stores()).create(op(), { name: 'globex-reviewer', tenantId: 'globex' });
    expect(created.map((r) => r.tenantId)).toEqual(['acme', null, 'globex']);
    // Name clashes are checked against platform roles and the tenant's own; a platform role against every tenant's.
    expect(scopes).toEqual(['acme', ALL_TENANTS, 'globex']);
  });
});

describe('RoleService.list', () => {
  it('hides service-account roles from everyone but platform operators', async () => {
    const svc = { ...ROLE_USER, id: 's', name: 'service:billing' };
    const stores = fakeUnitOfWork({ roles: { list: async () => [ROLE_ADMIN, svc, ROLE_USER] } });
    expect(
      (await new RoleService(stores, new TenantAccess(async () => {})).list(ctxOf(tenantAdmin('acme')))).map(
        (r) => r.name,
      ),
    ).toEqual(['admin', 'user']);
    expect((await new RoleService(stores, new TenantAccess(async () => {})).list(ctxOf())).map((r) => r.name)).toEqual([
      'admin',
      'user',
    ]);
    expect((await new RoleService(stores, new TenantAccess(async () => {})).list(op())).map((r) => r.name)).toEqual([
      'admin',
      'service:billing',
      'user',
    ]);
    await expect(
      new RoleService(stores, new TenantAccess(async () => {})).list({ correlationId: 'c' }),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('TenantService', () => {
  it("platform operators list every tenant; a tenant admin, the default tenant's too, only its own", async () => {
    const scopes: TenantScope[] = [];
    const stores = fakeUnitOfWork({ tenants: { list: async (scope) => (scopes.push(scope), []) } });
    const s = new TenantService(stores);
    await s.list(op());
    await s.list(ctxOf(tenantAdmin('acme')));
    await s.list(ctxOf());
    expect(scopes).toEqual([ALL_TENANTS, 'acme', 'default']);
    await expect(s.list(ctxOf(plainUser()))).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('only platform operators create tenants', async () => {
    await expect(
      new TenantService(fakeUnitOfWork({})).create(ctxOf(tenantAdmin('acme')), { id: 'evil', name: 'Evil' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      new TenantService(fakeUnitOfWork({})).create(ctxOf(), { id: 'evil', name: 'Evil' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const stores = fakeUnitOfWork({
      tenants: { findByIds: async () => [], create: async (t) => ({ ...t, createdAt: new Date(0), isActive: true }) },
    });
    await new TenantService(stores).create(op(), { id: 'acme', name: 'Acme' });
    expect(stores.eventsInTransaction).toEqual([
      expect.objectContaining({ eventType: 'tenant_created', tenantId: 'acme' }),
    ]);
  });

  it('409 on a duplicate tenant', async () => {
    const stores = fakeUnitOfWork({ tenants: { findByIds: async () => [tenant('acme')] } });
    await expect(new TenantService(stores).create(op(), { id: 'acme', name: 'Acme' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });
});

describe('UserService', () => {
  const hasher = fakeHasher();
  const service = (stores: ReturnType<typeof fakeUnitOfWork>) =>
    new UserService(stores, hasher, 100, new TenantAccess(async () => {}));

  it('a tenant admin creates users only in its own tenant (no store call for another)', async () => {
    await expect(
      service(fakeUnitOfWork({})).create(ctxOf(tenantAdmin('acme')), {
        username: 'mallory',
        password: 'password-1',
        tenantId: 'default',
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('creates a user with hashed password, default role user, and the event in the same transaction', async () => {
    const created: unknown[] = [];
    const stores = fakeUnitOfWork({
      tenants: { findByIds: async (scope, ids) => (scope === 'acme' && ids[0] === 'acme' ? [tenant('acme')] : []) },
      roles: { findByNames: async (_scope, names) => [ROLE_USER, ROLE_ADMIN].filter((r) => names.includes(r.name)) },
      users: {
        exists: async () => ({ username: false, email: false }),
        findByUsernames: async () => [
          userRecord({ id: '22222222-2222-4222-8222-222222222222', username: 'acme-admin', tenantId: 'acme' }),
        ],
        create: async (u) => (
          created.push(u),
          userRecord({ username: u.username, tenantId: u.tenantId, passwordHash: u.passwordHash })
        ),
      },
    });
    const view = await service(stores).create(ctxOf(tenantAdmin('acme')), { username: 'bob', password: 'password-1' });
    expect(view).not.toHaveProperty('passwordHash');
    expect(created).toEqual([
      expect.objectContaining({
        tenantId: 'acme',
        passwordHash: 'hashed:password-1',
        roleIds: [ROLE_USER.id],
        assignedBy: '22222222-2222-4222-8222-222222222222',
      }),
    ]);
    expect(stores.eventsInTransaction).toEqual([
      expect.objectContaining({ eventType: 'user_created', tenantId: 'acme', userId: 'acme-admin' }),
    ]);
    expect(JSON.stringify(stores.events)).not.toContain('password-1');
  });

  it('409 on a duplicate username, and no event', async () => {
    const stores = fakeUnitOfWork({
      tenants: { findByIds: async () => [tenant('default')] },
      roles: { findByNames: async () => [ROLE_USER] },
      users: { exists: async () => ({ username: true, email: false }) },
    });
    await expect(service(stores).create(ctxOf(), { username: 'alice', password: 'password-1' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(stores.events).toEqual([]);
  });

  it('unknown roles are a 422, unknown tenants a 404', async () => {
    const stores = fakeUnitOfWork({
      tenants: { findByIds: async () => [tenant('default')] },
      roles: { findByNames: async () => [] },
    });
    await expect(
      service(stores).create(ctxOf(), { username: 'x1', password: 'password-1', roles: ['ghost'] }),
    ).rejects.toBeInstanceOf(InputError);
    const none = fakeUnitOfWork({ tenants: { findByIds: async () => [] } });
    await expect(
      service(none).create(op(), { username: 'x1', password: 'password-1', tenantId: 'ghost' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      service(none).create(ctxOf(), { username: 'x1', password: 'password-1', tenantId: 'ghost' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("lists the caller's tenant only; a platform operator may name another; cursors page by username", async () => {
    const calls: [TenantScope, { limit: number; after?: string }][] = [];
    const rows = ['a', 'b', 'c'].map((u) => userRecord({ username: u }));
    const stores = fakeUnitOfWork({
      users: {
        list: async (scope, page) => (
          calls.push([scope, page]),
          rows.filter((r) => page.after === undefined || r.username > page.after).slice(0, page.limit)
        ),
      },
    });
    const first = await service(stores).list(ctxOf(tenantAdmin('acme')), { first: 2 });
    expect(first.users.map((u) => u.username)).toEqual(['a', 'b']);
    const second = await service(stores).list(ctxOf(tenantAdmin('acme')), { first: 2, after: first.nextCursor });
    expect(second).toMatchObject({ users: [expect.objectContaining({ username: 'c' })], nextCursor: null });
    expect(calls.map((c) => c[0])).toEqual(['acme', 'acme']);
    await expect(service(stores).list(ctxOf(tenantAdmin('acme')), { tenantId: 'default' })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(service(stores).list(ctxOf(), { tenantId: 'acme' })).rejects.toBeInstanceOf(ForbiddenError);
    await service(stores).list(op(), { tenantId: 'acme' });
    expect(calls[2]![0]).toBe('acme');
    await expect(service(stores).list(ctxOf(plainUser()), {})).rejects.toBeInstanceOf(ForbiddenError);
    await expect(service(stores).list(ctxOf(), { first: 1000 })).rejects.toBeInstanceOf(InputError);
  });

  it("references: scoped to the caller's tenant unless platform operator or service", async () => {
    const scopes: TenantScope[] = [];
    const stores = fakeUnitOfWork({ users: { findByIds: async (scope) => (scopes.push(scope), []) } });
    const id = userRecord().id;
    await service(stores).findByIds(ctxOf(tenantAdmin('acme')), [id]);
    await service(stores).findByIds(ctxOf(plainUser('acme')), [id]);
    await service(stores).findByIds(ctxOf(), [id]);
    await service(stores).findByIds(op(), [id]);
    await service(stores).findByIds(
      ctxOf(caller({ username: 'svc', tenantId: 'acme', roles: ['service:svc'], scopes: ['read'], isService: true })),
      [id],
    );
    expect(scopes).toEqual(['acme', 'acme', 'default', ALL_TENANTS, ALL_TENANTS]);
    await expect(service(stores).findByIds({ correlationId: 'c' }, [id])).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("assignRole: a tenant admin cannot reach another tenant's user (404), duplicates are 409", async () => {
    const other = fakeUnitOfWork({
      users: { findByIds: async (scope) => (scope === 'default' ? [userRecord()] : []) },
    });
    await expect(
      service(other).assignRole(ctxOf(tenantAdmin('acme')), { userId: userRecord().id, roleName: 'admin' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const dup = fakeUnitOfWork({
      users: { findByIds: async () => [userRecord()], findByUsernames: async () => [], assignRole: async () => false },
      roles: { findByNames: async () => [ROLE_USER] },
    });
    await expect(
      service(dup).assignRole(ctxOf(), { userId: userRecord().id, roleName: 'user' }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(dup.events).toEqual([]);
  });

  it('only an operator grants platform-admin: a tenant admin cannot lift anyone out of its tenant', async () => {
    const stores = fakeUnitOfWork({
      users: { findByIds: async () => [userRecord()] },
      roles: { findByNames: async () => [{ ...ROLE_ADMIN, name: 'platform-admin' }] },
    });
    await expect(
      service(stores).assignRole(ctxOf(), { userId: userRecord().id, roleName: 'platform-admin' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      service(fakeUnitOfWork({})).create(ctxOf(), {
        username: 'sneaky',
        password: 'password-1',
        roles: ['platform-admin'],
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("records an operator's action in the tenant it touched", async () => {
    const recorded: string[] = [];
    const stores = fakeUnitOfWork({ users: { list: async () => [] } });
    await new UserService(
      stores,
      hasher,
      100,
      new TenantAccess(async (a) => {
        recorded.push(`${a.tenantId}:${a.operator}:${a.action}`);
      }),
    ).list(op(), { tenantId: 'acme' });
    expect(recorded).toEqual(['acme:op:identity.users.list']);
  });

  it("me: the caller's own row in its own tenant", async () => {
    const asked: [TenantScope, readonly string[]][] = [];
    const stores = fakeUnitOfWork({
      users: {
        findByUsernames: async (scope, names) => (asked.push([scope, names]), [userRecord({ roles: [ROLE_ADMIN] })]),
      },
    });
    const me = await service(stores).me(ctxOf(plainUser('acme')));
    expect(asked).toEqual([['acme', ['bob']]]);
    expect(me.scopes).toEqual(['admin', 'read', 'write']);
  });
});

describe('ServiceAccountService', () => {
  it('only platform operators create service accounts (a service token may act for any tenant)', async () => {
    const s = new ServiceAccountService(fakeUnitOfWork({}), fakeHasher());
    await expect(s.create(ctxOf(tenantAdmin('acme')), { name: 'robot' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(s.create(ctxOf(plainUser()), { name: 'robot' })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('creates a service user with a service: role, returns the secret once and stores only its hash', async () => {
    const createdUsers: { passwordHash: string; isService: boolean }[] = [];
    const stores = fakeUnitOfWork({
      tenants: { findByIds: async () => [tenant('default')] },
      users: {
        exists: async () => ({ username: false, email: false }),
        findServiceAccount: async () => null,
        findByUsernames: async () => [],
        create: async (u) => (
          createdUsers.push(u),
          userRecord({
            username: u.username,
            isService: true,
            roles: [{ ...ROLE_USER, name: 'service:robot', scopes: ['read', 'write'] }],
          })
        ),
      },
      roles: { findByNames: async () => [], create: async (r) => ({ ...r, id: 'r', createdAt: new Date(0) }) },
    });
    await expect(
      new ServiceAccountService(stores, fakeHasher()).create(ctxOf(), { name: 'robot' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const account = await new ServiceAccountService(stores, fakeHasher()).create(op(), {
      name: 'robot',
      scopes: ['read', 'write'],
    });
    expect(account).toMatchObject({ clientId: 'robot', roles: ['service:robot'], scopes: ['read', 'write'] });
    expect(account.clientSecret.length).toBeGreaterThanOrEqual(43);
    expect(createdUsers[0]).toMatchObject({ isService: true, passwordHash: `hashed:${account.clientSecret}` });
    expect(JSON.stringify(stores.events)).not.toContain(account.clientSecret);
  });
});
