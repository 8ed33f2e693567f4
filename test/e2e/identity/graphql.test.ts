// The identity subgraph over real HTTP: auth in the context, queries, mutations, and
// `_entities` reference resolution with tenant scoping.
import { garbageCursors } from '../../support/garbage-cursors';
import type { Harness } from '../../support/service-harness';
import { call, gql, login, loginOperator, startIdentity, TEST_ENV } from './identity.helpers';
import { badTokens } from './tokens';

jest.setTimeout(60_000);

const ENTITIES = `query ($representations: [_Any!]!) {
  _entities(representations: $representations) {
    ... on User { id username tenantId roles }
    ... on Tenant { id name }
  }
}`;

describe('identity subgraph', () => {
  let harness: Harness;
  let url: string;
  /** The default tenant's admin (a tenant admin like any other). */
  let root: string;
  /** The platform operator. */
  let operator: string;
  let alice: string;
  let acmeAdmin: string;
  let acmeUser: string;
  let aliceId: string;
  let workerId: string;

  beforeAll(async () => {
    ({ harness, url } = await startIdentity());
    root = (await login(url, TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD)).access_token;
    operator = (await loginOperator(url)).access_token;
    alice = (await login(url, 'alice', 'alice-password-1')).access_token;
    expect(
      (await gql(url, 'mutation { createTenant(id: "acme", name: "Acme") { id } }', {}, root)).body.errors?.[0]
        ?.extensions?.code,
    ).toBe('FORBIDDEN');
    const tenant = await gql(
      url,
      'mutation { createTenant(id: "acme", name: "Acme") { id name isActive } }',
      {},
      operator,
    );
    expect(tenant.body).toEqual({ data: { createTenant: { id: 'acme', name: 'Acme', isActive: true } } });
    const boss = await gql(
      url,
      `mutation ($input: CreateUserInput!) { createUser(input: $input) { id username tenantId roles scopes } }`,
      { input: { username: 'acme-boss', password: 'acme-boss-pw', tenantId: 'acme', roles: ['admin', 'user'] } },
      operator,
    );
    expect(boss.body.data.createUser).toMatchObject({ tenantId: 'acme', roles: ['admin', 'user'] });
    acmeAdmin = (await login(url, 'acme-boss', 'acme-boss-pw', 'acme')).access_token;
    const worker = await gql(
      url,
      `mutation ($input: CreateUserInput!) { createUser(input: $input) { id tenantId } }`,
      { input: { username: 'acme-worker', password: 'acme-worker-pw' } },
      acmeAdmin,
    );
    expect(worker.body.data.createUser.tenantId).toBe('acme');
    workerId = worker.body.data.createUser.id;
    acmeUser = (await login(url, 'acme-worker', 'acme-worker-pw', 'acme')).access_token;
    aliceId = (await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'alice' } })).id;
  });
  afterAll(() => harness.close());

  it('me with a bearer token', async () => {
    const res = await gql(url, '{ me { username tenantId roles scopes email isActive } }', {}, alice);
    expect(res.body).toEqual({
      data: {
        me: { username: 'alice', tenantId: 'default', roles: ['user'], scopes: ['read'], email: null, isActive: true },
      },
    });
  });

  it('me without a token → UNAUTHENTICATED', async () => {
    const res = await gql(url, '{ me { username } }');
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.body.data?.me ?? null).toBeNull();
  });

  it('a bad token → UNAUTHENTICATED for the whole operation', async () => {
    for (const [name, token] of await badTokens()) {
      const res = await gql(url, '{ me { username } }', {}, token);
      expect({
        name,
        code: res.body.errors?.[0]?.extensions?.code,
        status: res.status,
        www: res.headers.get('www-authenticate'),
      }).toEqual({ name, code: 'UNAUTHENTICATED', status: 401, www: 'Bearer' });
    }
    const basic = await call(`${url}/graphql`, {
      method: 'POST',
      json: { query: '{ me { username } }' },
      headers: { authorization: 'Basic cm9vdDpyb290' },
    });
    expect(basic.status).toBe(401);
    expect((await call(`${url}/health`)).status).toBe(200);
  });

  it('login and refreshToken mutations', async () => {
    const res = await gql(
      url,
      'mutation { login(username: "alice", password: "alice-password-1") { accessToken tokenType expiresIn refreshToken } }',
    );
    const payload = res.body.data.login;
    expect(payload).toMatchObject({ tokenType: 'bearer', expiresIn: 86400 });
    const me = await gql(url, '{ me { username } }', {}, payload.accessToken);
    expect(me.body.data.me.username).toBe('alice');
    const refreshed = await gql(
      url,
      'mutation ($t: String!) { refreshToken(refreshToken: $t) { accessToken refreshToken } }',
      { t: payload.refreshToken },
    );
    expect(refreshed.body.data.refreshToken.refreshToken).not.toBe(payload.refreshToken);
    const replay = await gql(url, 'mutation ($t: String!) { refreshToken(refreshToken: $t) { accessToken } }', {
      t: payload.refreshToken,
    });
    expect(replay.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const bad = await gql(url, 'mutation { login(username: "alice", password: "nope") { accessToken } }');
    expect(bad.body.errors?.[0]).toMatchObject({
      message: 'Could not validate credentials',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    const wrongTenant = await gql(
      url,
      'mutation { login(username: "alice", password: "alice-password-1", tenantId: "acme") { accessToken } }',
    );
    expect(wrongTenant.body.errors?.[0]?.message).toBe('Could not validate credentials');
  });

  it("tenants: admin only, scoped to the caller's tenant unless platform operator", async () => {
    expect(
      (await gql(url, '{ tenants { id } }', {}, operator)).body.data.tenants.map((t: { id: string }) => t.id),
    ).toEqual(['acme', 'default', 'platform']);
    expect((await gql(url, '{ tenants { id } }', {}, root)).body.data.tenants).toEqual([{ id: 'default' }]);
    expect((await gql(url, '{ tenants { id } }', {}, acmeAdmin)).body.data.tenants).toEqual([{ id: 'acme' }]);
    expect((await gql(url, '{ tenants { id } }', {}, alice)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(url, '{ tenants { id } }')).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('users: cursor-paginated and tenant-scoped', async () => {
    const q =
      'query ($first: Int, $after: String, $tenantId: String) { users(first: $first, after: $after, tenantId: $tenantId) { nodes { username tenantId } pageInfo { hasNextPage endCursor } edges { cursor } } }';
    const acme = await gql(url, q, { first: 10 }, acmeAdmin);
    expect(acme.body.data.users.nodes).toEqual([
      { username: 'acme-boss', tenantId: 'acme' },
      { username: 'acme-worker', tenantId: 'acme' },
    ]);
    expect((await gql(url, q, { tenantId: 'default' }, acmeAdmin)).body.errors?.[0]?.extensions?.code).toBe(
      'FORBIDDEN',
    );
    expect((await gql(url, q, {}, acmeUser)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(url, q, { tenantId: 'acme' }, root)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const page1 = await gql(url, q, { first: 1 }, root);
    expect(page1.body.data.users.nodes).toEqual([{ username: 'alice', tenantId: 'default' }]);
    expect(page1.body.data.users.pageInfo.hasNextPage).toBe(true);
    const page2 = await gql(url, q, { first: 1, after: page1.body.data.users.pageInfo.endCursor }, root);
    expect(page2.body.data.users.nodes).toEqual([{ username: 'root', tenantId: 'default' }]);
    expect(page2.body.data.users.pageInfo.hasNextPage).toBe(false);
  });

  it('users: every garbage cursor is BAD_USER_INPUT on `after`, never an internal error', async () => {
    const q = 'query ($after: String) { users(first: 2, after: $after) { nodes { username } } }';
    for (const [label, cursor] of garbageCursors('u')) {
      const res = await gql(url, q, { after: cursor }, operator);
      expect([label, res.status]).toEqual([label, 200]);
      expect([label, res.body.data?.users ?? null]).toEqual([label, null]);
      expect([label, res.body.errors?.[0]?.extensions]).toEqual([
        label,
        expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }),
      ]);
    }
  });

  it('createRole and assignRole; duplicates are CONFLICT, long names BAD_USER_INPUT', async () => {
    // A platform role (the operator names no tenant), so acme's admin may assign it.
    const role = await gql(
      url,
      'mutation { createRole(name: "gql-auditor", scopes: ["read", "audit"]) { name scopes description } }',
      {},
      operator,
    );
    expect(role.body.data.createRole).toEqual({ name: 'gql-auditor', scopes: ['read', 'audit'], description: null });
    expect(
      (await gql(url, 'mutation { createRole(name: "gql-auditor") { name } }', {}, operator)).body.errors?.[0]
        ?.extensions?.code,
    ).toBe('CONFLICT');
    expect(
      (await gql(url, `mutation { createRole(name: "${'x'.repeat(101)}") { name } }`, {}, root)).body.errors?.[0]
        ?.extensions?.code,
    ).toBe('BAD_USER_INPUT');
    expect(
      (await gql(url, 'mutation { createRole(name: "x") { name } }', {}, alice)).body.errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
    const assigned = await gql(
      url,
      'mutation ($id: ID!) { assignRole(userId: $id, roleName: "gql-auditor") { username roles scopes } }',
      { id: workerId },
      acmeAdmin,
    );
    expect(assigned.body.data.assignRole).toEqual({
      username: 'acme-worker',
      roles: ['user', 'gql-auditor'],
      scopes: ['audit', 'read'],
    });
    const cross = await gql(
      url,
      'mutation ($id: ID!) { assignRole(userId: $id, roleName: "admin") { username } }',
      { id: aliceId },
      acmeAdmin,
    );
    expect(cross.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const dupUser = await gql(
      url,
      'mutation { createUser(input: {username: "alice", password: "password-123"}) { id } }',
      {},
      root,
    );
    expect(dupUser.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  describe('_entities (federation reference resolution)', () => {
    it('lets the router reuse entity answers briefly, per caller, and nothing else', async () => {
      const entities = await gql(url, ENTITIES, { representations: [{ __typename: 'User', username: 'alice' }] }, root);
      expect(entities.headers.get('cache-control')).toBe('max-age=5, private');
      const me = await gql(url, '{ me { username } }', {}, root);
      expect(me.headers.get('cache-control')).toBe('no-store');
      const failed = await gql(
        url,
        ENTITIES,
        { representations: [{ __typename: 'User', username: 'alice' }] },
        'not-a-token',
      );
      expect(failed.headers.get('cache-control') ?? '').not.toMatch(/max-age=[1-9]/);
    });

    it('resolves users by id and by username, and tenants, in one batched request', async () => {
      const res = await gql(
        url,
        ENTITIES,
        {
          representations: [
            { __typename: 'User', id: aliceId },
            { __typename: 'User', username: 'root' },
            { __typename: 'Tenant', id: 'acme' },
            { __typename: 'User', id: '00000000-0000-4000-8000-000000000000' },
          ],
        },
        operator,
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data._entities).toEqual([
        { id: aliceId, username: 'alice', tenantId: 'default', roles: ['user'] },
        expect.objectContaining({ username: 'root', tenantId: 'default' }),
        { id: 'acme', name: 'Acme' },
        null,
      ]);
    });

    it("a reference to another tenant's user or tenant resolves to null for a tenant's caller", async () => {
      const res = await gql(
        url,
        ENTITIES,
        {
          representations: [
            { __typename: 'User', id: aliceId },
            { __typename: 'User', username: 'root' },
            { __typename: 'User', username: 'acme-worker' },
            { __typename: 'Tenant', id: 'default' },
            { __typename: 'Tenant', id: 'acme' },
          ],
        },
        acmeUser,
      );
      expect(res.body.data._entities).toEqual([
        null,
        null,
        { id: workerId, username: 'acme-worker', tenantId: 'acme', roles: ['user', 'gql-auditor'] },
        null,
        { id: 'acme', name: 'Acme' },
      ]);
    });

    it('anonymous references are refused', async () => {
      const res = await gql(url, ENTITIES, { representations: [{ __typename: 'User', id: aliceId }] });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });
  });

  it('the SDL declares the keys and auth directives for the router', async () => {
    const res = await gql(url, '{ _service { sdl } }');
    const sdl: string = res.body.data._service.sdl;
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.7"');
    expect(sdl).toMatch(/type User\s+@key\(fields: "id"\)\s+@key\(fields: "username"\)/);
    expect(sdl).toMatch(/type Tenant\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/tenants: \[Tenant!\]! @requiresScopes\(scopes: \[\["admin"\]\]\)/);
  });
});
