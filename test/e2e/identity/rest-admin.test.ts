// Refresh tokens, service accounts, admin routes and tenant isolation over real HTTP.
import { garbageCursors } from '../../support/garbage-cursors';
import type { Harness } from '../../support/service-harness';
import { call, login, loginOperator, startIdentity, TEST_ENV } from './identity.helpers';

jest.setTimeout(60_000);

describe('identity REST: refresh tokens, service accounts, admin and tenant isolation', () => {
  let harness: Harness;
  let url: string;
  /** The platform operator: acts in every tenant. */
  let root: string;
  /** The seeded admin of tenant `default`: a tenant admin like any other. */
  let defaultAdmin: string;

  beforeAll(async () => {
    ({ harness, url } = await startIdentity());
    root = (await loginOperator(url)).access_token;
    defaultAdmin = (await login(url, TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD)).access_token;
  });
  afterAll(() => harness.close());

  describe('refresh tokens', () => {
    it('rotate on use; the old one stops working', async () => {
      const first = await login(url, 'alice', 'alice-password-1');
      const r1 = await call(`${url}/v1/auth/refresh`, { method: 'POST', json: { refresh_token: first.refresh_token } });
      expect(r1.status).toBe(200);
      expect(r1.body).toMatchObject({ token_type: 'bearer', expires_in: 86400 });
      expect(r1.body.refresh_token).not.toBe(first.refresh_token);
      expect((await call(`${url}/v1/auth/verify`, { token: r1.body.access_token })).body.username).toBe('alice');
      const r2 = await call(`${url}/v1/auth/refresh`, {
        method: 'POST',
        json: { refresh_token: r1.body.refresh_token },
      });
      expect(r2.status).toBe(200);
    });

    it('a reused token revokes the whole family, including the newest token', async () => {
      const first = await login(url, 'alice', 'alice-password-1');
      const rotated = await call(`${url}/v1/auth/refresh`, {
        method: 'POST',
        json: { refresh_token: first.refresh_token },
      });
      const replay = await call(`${url}/v1/auth/refresh`, {
        method: 'POST',
        json: { refresh_token: first.refresh_token },
      });
      expect(replay.status).toBe(401);
      expect(replay.headers.get('www-authenticate')).toBe('Bearer');
      const newest = await call(`${url}/v1/auth/refresh`, {
        method: 'POST',
        json: { refresh_token: rotated.body.refresh_token },
      });
      expect(newest.status).toBe(401);
      const other = await login(url, 'alice', 'alice-password-1'); // other sessions are untouched
      expect(
        (await call(`${url}/v1/auth/refresh`, { method: 'POST', json: { refresh_token: other.refresh_token } })).status,
      ).toBe(200);
      const revoked = await harness.db.prisma.outboxEvent.findMany({ where: { eventType: 'token_revoked' } });
      expect(revoked.some((e) => (e.eventData as { reason: string }).reason === 'reuse_detected')).toBe(true);
    });

    it('logout and revoke end the session; unknown tokens are accepted silently', async () => {
      for (const path of ['/v1/auth/logout', '/v1/auth/revoke']) {
        const session = await login(url, 'alice', 'alice-password-1');
        const out = await call(`${url}${path}`, { method: 'POST', json: { refresh_token: session.refresh_token } });
        expect(out.status).toBe(200);
        expect(out.body).toEqual({ revoked: true });
        expect(
          (await call(`${url}/v1/auth/refresh`, { method: 'POST', json: { refresh_token: session.refresh_token } }))
            .status,
        ).toBe(401);
      }
      expect(
        (await call(`${url}/v1/auth/logout`, { method: 'POST', json: { refresh_token: 'never-issued' } })).body,
      ).toEqual({ revoked: true });
    });

    it('garbage and missing refresh tokens', async () => {
      expect(
        (await call(`${url}/v1/auth/refresh`, { method: 'POST', json: { refresh_token: 'garbage' } })).status,
      ).toBe(401);
      expect((await call(`${url}/v1/auth/refresh`, { method: 'POST', json: {} })).status).toBe(422);
    });

    it('are stored only as hashes', async () => {
      const session = await login(url, 'alice', 'alice-password-1');
      const rows = await harness.db.prisma.refreshToken.findMany();
      expect(rows.some((r) => r.tokenHash === session.refresh_token)).toBe(false);
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true);
    });
  });

  describe('service accounts', () => {
    let clientSecret: string;

    it('a platform operator creates one; the secret is shown once and stored hashed', async () => {
      const res = await call(`${url}/v1/service-accounts`, {
        method: 'POST',
        token: root,
        json: { name: 'billing-svc', scopes: ['read', 'write'] },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        client_id: 'billing-svc',
        tenant_id: 'default',
        roles: ['service:billing-svc'],
        scopes: ['read', 'write'],
      });
      clientSecret = res.body.client_secret;
      const row = await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'billing-svc' } });
      expect(row.isService).toBe(true);
      expect(row.passwordHash).toMatch(/^\$scrypt\$/);
      expect(row.passwordHash).not.toContain(clientSecret);
      const dup = await call(`${url}/v1/service-accounts`, {
        method: 'POST',
        token: root,
        json: { name: 'billing-svc' },
      });
      expect(dup.status).toBe(409);
    });

    it('client-credentials grant by form and by JSON; token carries service roles and scopes', async () => {
      const form = await call(`${url}/v1/auth/service-token`, {
        method: 'POST',
        form: { grant_type: 'client_credentials', client_id: 'billing-svc', client_secret: clientSecret },
      });
      expect(form.status).toBe(200);
      expect(form.body).toMatchObject({ token_type: 'bearer', expires_in: 86400, scope: 'read write' });
      expect(form.body).not.toHaveProperty('refresh_token');
      const verify = await call(`${url}/v1/auth/verify`, { token: form.body.access_token });
      expect(verify.body).toEqual({
        valid: true,
        username: 'billing-svc',
        tenant_id: 'default',
        roles: ['service:billing-svc'],
        scopes: ['read', 'write'],
      });
      const json = await call(`${url}/v1/auth/service-token`, {
        method: 'POST',
        json: { grant_type: 'client_credentials', client_id: 'billing-svc', client_secret: clientSecret },
      });
      expect(json.status).toBe(200);
    });

    it("wrong secret, a person's password, or a password login with the secret → 401", async () => {
      const wrong = await call(`${url}/v1/auth/service-token`, {
        method: 'POST',
        json: { grant_type: 'client_credentials', client_id: 'billing-svc', client_secret: 'nope' },
      });
      expect(wrong.status).toBe(401);
      const person = await call(`${url}/v1/auth/service-token`, {
        method: 'POST',
        json: { grant_type: 'client_credentials', client_id: 'alice', client_secret: 'alice-password-1' },
      });
      expect(person.status).toBe(401);
      const asPerson = await call(`${url}/v1/auth/login`, {
        method: 'POST',
        json: { username: 'billing-svc', password: clientSecret },
      });
      expect(asPerson.status).toBe(401);
      const grant = await call(`${url}/v1/auth/service-token`, {
        method: 'POST',
        json: { grant_type: 'password', client_id: 'billing-svc', client_secret: clientSecret },
      });
      expect(grant.status).toBe(422);
    });
  });

  describe('tenants, users and tenant isolation', () => {
    let acmeAdmin: string;
    let acmeUser: string;
    let aliceId: string;

    beforeAll(async () => {
      expect(
        (
          await call(`${url}/v1/tenants`, {
            method: 'POST',
            token: root,
            json: { id: 'acme', name: 'Acme Corp', metadata: { plan: 'gold' } },
          })
        ).status,
      ).toBe(201);
      const a = await call(`${url}/v1/users`, {
        method: 'POST',
        token: root,
        json: {
          username: 'acme-boss',
          password: 'acme-boss-pw',
          tenant_id: 'acme',
          roles: ['admin', 'user'],
          email: 'boss@acme.test',
        },
      });
      expect(a.status).toBe(201);
      acmeAdmin = (await login(url, 'acme-boss', 'acme-boss-pw', 'acme')).access_token;
      const u = await call(`${url}/v1/users`, {
        method: 'POST',
        token: acmeAdmin,
        json: { username: 'acme-worker', password: 'acme-worker-pw' },
      });
      expect(u.status).toBe(201);
      expect(u.body).toMatchObject({ tenant_id: 'acme', roles: ['user'], scopes: ['read'] });
      acmeUser = (await login(url, 'acme-worker', 'acme-worker-pw', 'acme')).access_token;
      aliceId = (await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'alice' } })).id;
    });

    it('POST /v1/tenants: 409 on a duplicate; only platform operators', async () => {
      expect(
        (await call(`${url}/v1/tenants`, { method: 'POST', token: root, json: { id: 'acme', name: 'Again' } })).status,
      ).toBe(409);
      expect(
        (await call(`${url}/v1/tenants`, { method: 'POST', token: acmeAdmin, json: { id: 'evil', name: 'Evil' } }))
          .status,
      ).toBe(403);
    });

    it('the seeded admin of tenant default is a tenant admin: 403 for another tenant by every route', async () => {
      const acmeWorker = (await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'acme-worker' } })).id;
      expect((await call(`${url}/v1/users?tenant_id=acme`, { token: defaultAdmin })).status).toBe(403);
      expect(
        (
          await call(`${url}/v1/users`, {
            method: 'POST',
            token: defaultAdmin,
            json: { username: 'intruder', password: 'intruder-pw', tenant_id: 'acme' },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await call(`${url}/v1/users/${acmeWorker}/roles`, {
            method: 'POST',
            token: defaultAdmin,
            json: { role_name: 'admin' },
          })
        ).status,
      ).toBe(404);
      expect(
        (await call(`${url}/v1/tenants`, { method: 'POST', token: defaultAdmin, json: { id: 'mine', name: 'Mine' } }))
          .status,
      ).toBe(403);
      expect(
        (
          await call(`${url}/v1/service-accounts`, {
            method: 'POST',
            token: defaultAdmin,
            json: { name: 'sneaky-svc' },
          })
        ).status,
      ).toBe(403);
      const listed = await call(`${url}/v1/tenants`, { token: defaultAdmin });
      expect(listed.body.tenants.map((t: { id: string }) => t.id)).toEqual(['default']);
      // Nor can it make itself (or anyone) an operator.
      const self = (await harness.db.prisma.user.findFirstOrThrow({ where: { username: TEST_ENV.DEV_ADMIN_USERNAME } }))
        .id;
      expect(
        (
          await call(`${url}/v1/users/${self}/roles`, {
            method: 'POST',
            token: defaultAdmin,
            json: { role_name: 'platform-admin' },
          })
        ).status,
      ).toBe(403);
    });

    it("an operator's action in another tenant is in that tenant's audit trail", async () => {
      const before = await harness.db.prisma.outboxEvent.count({
        where: { tenantId: 'acme', eventType: 'platform_operator_access' },
      });
      expect((await call(`${url}/v1/users?tenant_id=acme`, { token: root })).status).toBe(200);
      const rows = await harness.db.prisma.outboxEvent.findMany({
        where: { tenantId: 'acme', eventType: 'platform_operator_access' },
        orderBy: { id: 'asc' },
      });
      expect(rows.length).toBe(before + 1);
      expect(rows[rows.length - 1]).toMatchObject({
        userId: 'operator',
        eventData: { operator: 'operator', operator_tenant: 'platform', action: 'identity.users.list' },
      });
    });

    it('GET /v1/tenants: a platform operator sees all, a tenant admin only its own', async () => {
      const all = await call(`${url}/v1/tenants`, { token: root });
      expect(all.body.tenants.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining(['default', 'acme']));
      expect(all.body.tenants.find((t: { id: string }) => t.id === 'acme')).toEqual({ id: 'acme', name: 'Acme Corp' });
      const own = await call(`${url}/v1/tenants`, { token: acmeAdmin });
      expect(own.body.tenants.map((t: { id: string }) => t.id)).toEqual(['acme']);
    });

    it("a tenant admin lists only its tenant's users and cannot ask for another tenant", async () => {
      const list = await call(`${url}/v1/users`, { token: acmeAdmin });
      expect(list.status).toBe(200);
      expect(list.body.users.map((u: { username: string }) => u.username)).toEqual(['acme-boss', 'acme-worker']);
      expect(list.body.users.every((u: { tenant_id: string }) => u.tenant_id === 'acme')).toBe(true);
      expect(JSON.stringify(list.body)).not.toContain('alice');
      expect(JSON.stringify(list.body)).not.toContain('password');
      expect((await call(`${url}/v1/users?tenant_id=default`, { token: acmeAdmin })).status).toBe(403);
      expect((await call(`${url}/v1/users`, { token: acmeUser })).status).toBe(403);
    });

    it('a tenant admin cannot create users in, or assign roles to users of, another tenant', async () => {
      const create = await call(`${url}/v1/users`, {
        method: 'POST',
        token: acmeAdmin,
        json: { username: 'sneaky', password: 'sneaky-password', tenant_id: 'default' },
      });
      expect(create.status).toBe(403);
      const assign = await call(`${url}/v1/users/${aliceId}/roles`, {
        method: 'POST',
        token: acmeAdmin,
        json: { role_name: 'admin' },
      });
      expect(assign.status).toBe(404);
      expect(
        (await call(`${url}/v1/service-accounts`, { method: 'POST', token: acmeAdmin, json: { name: 'acme-robot' } }))
          .status,
      ).toBe(403);
    });

    it('the platform operator pages through users of any tenant', async () => {
      for (const n of [1, 2, 3]) {
        expect(
          (
            await call(`${url}/v1/users`, {
              method: 'POST',
              token: root,
              json: { username: `page-${n}`, password: 'page-password', tenant_id: 'acme' },
            })
          ).status,
        ).toBe(201);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { users: { username: string }[]; next_cursor: string | null } } = await call(
          `${url}/v1/users?tenant_id=acme&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          { token: root },
        );
        expect(res.body.users.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.users.map((u) => u.username));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['acme-boss', 'acme-worker', 'page-1', 'page-2', 'page-3']);
      expect((await call(`${url}/v1/users?limit=1000`, { token: root })).status).toBe(422);
      expect((await call(`${url}/v1/users?cursor=bogus`, { token: root })).status).toBe(422);
    });

    it('answers every garbage cursor with a 422 naming the query parameter `cursor`, never a 500', async () => {
      // `dToA` is base64url of "u:\0": it once reached PostgreSQL, which refuses NUL in text (a 500).
      const dToA = await call(`${url}/v1/users?cursor=dToA`, { token: root });
      expect(dToA.status).toBe(422);
      expect(dToA.body).toEqual({ detail: [{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }] });
      for (const [label, cursor] of garbageCursors('u')) {
        const res = await call(`${url}/v1/users?${new URLSearchParams({ cursor, limit: '2' })}`, { token: root });
        expect([label, res.status]).toEqual([label, 422]);
        expect([label, res.body.detail[0].loc]).toEqual([label, ['query', 'cursor']]);
      }
    });

    it('assigns a role (409 when already held) and the next login carries it', async () => {
      const worker = await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'acme-worker' } });
      await call(`${url}/v1/roles?role_name=acme-editor&scopes=write`, { method: 'POST', token: root });
      const res = await call(`${url}/v1/users/${worker.id}/roles`, {
        method: 'POST',
        token: acmeAdmin,
        json: { role_name: 'acme-editor' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        username: 'acme-worker',
        roles: ['user', 'acme-editor'],
        scopes: ['read', 'write'],
      });
      expect(
        (
          await call(`${url}/v1/users/${worker.id}/roles`, {
            method: 'POST',
            token: acmeAdmin,
            json: { role_name: 'acme-editor' },
          })
        ).status,
      ).toBe(409);
      expect(
        (
          await call(`${url}/v1/users/${worker.id}/roles`, {
            method: 'POST',
            token: acmeAdmin,
            json: { role_name: 'ghost' },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await call(`${url}/v1/users/not-a-uuid/roles`, {
            method: 'POST',
            token: acmeAdmin,
            json: { role_name: 'user' },
          })
        ).status,
      ).toBe(404);
      const fresh = await login(url, 'acme-worker', 'acme-worker-pw', 'acme');
      expect((await call(`${url}/v1/auth/verify`, { token: fresh.access_token })).body.scopes).toEqual([
        'read',
        'write',
      ]);
      const event = await harness.db.prisma.outboxEvent.findFirst({
        where: { eventType: 'role_assigned', tenantId: 'acme' },
      });
      expect(event).toMatchObject({
        service: 'identity',
        userId: 'acme-boss',
        eventData: expect.objectContaining({ role_name: 'acme-editor' }),
      });
    });

    it("GET /v1/me shows the caller's own email and tenant", async () => {
      const me = await call(`${url}/v1/me`, { token: acmeAdmin });
      expect(me.body).toEqual({
        username: 'acme-boss',
        tenant_id: 'acme',
        roles: ['admin', 'user'],
        scopes: ['admin', 'read', 'write'],
        email: 'boss@acme.test',
      });
    });

    it("a tenant admin's roles belong to its tenant: no other tenant sees or assigns them", async () => {
      const made = await call(`${url}/v1/roles?role_name=acme-approver&scopes=write`, {
        method: 'POST',
        token: acmeAdmin,
      });
      expect(made.status).toBe(200);
      expect(made.body).toMatchObject({ name: 'acme-approver', tenant_id: 'acme' });
      // Not visible to, nor assignable in, tenant default; and default may have its own of that name.
      expect(
        (await call(`${url}/v1/roles`, { token: defaultAdmin })).body.roles.map((r: { name: string }) => r.name),
      ).not.toContain('acme-approver');
      expect(
        (
          await call(`${url}/v1/users/${aliceId}/roles`, {
            method: 'POST',
            token: defaultAdmin,
            json: { role_name: 'acme-approver' },
          })
        ).status,
      ).toBe(404);
      expect(
        (await call(`${url}/v1/roles?role_name=acme-approver`, { method: 'POST', token: defaultAdmin })).status,
      ).toBe(200);
      // A tenant role cannot take a platform role's name, nor name another tenant.
      expect((await call(`${url}/v1/roles?role_name=admin`, { method: 'POST', token: acmeAdmin })).status).toBe(409);
      expect(
        (await call(`${url}/v1/roles?role_name=x-role&tenant_id=default`, { method: 'POST', token: acmeAdmin })).status,
      ).toBe(403);
      // The operator makes platform roles, visible to every tenant.
      const platform = await call(`${url}/v1/roles?role_name=auditor-all&scopes=read`, { method: 'POST', token: root });
      expect(platform.body).toMatchObject({ name: 'auditor-all', tenant_id: null });
      expect(
        (await call(`${url}/v1/roles`, { token: acmeAdmin })).body.roles.map((r: { name: string }) => r.name),
      ).toContain('auditor-all');
    });

    it('usernames and emails are unique within a tenant, so creating one reveals nothing of other tenants', async () => {
      // `alice` exists in tenant default; acme may have its own, and the answer says nothing of default.
      const own = await call(`${url}/v1/users`, {
        method: 'POST',
        token: acmeAdmin,
        json: { username: 'alice', password: 'acme-alice-pw', email: 'boss@acme.test2' },
      });
      expect(own.status).toBe(201);
      const sameEmail = await call(`${url}/v1/users`, {
        method: 'POST',
        token: root,
        json: { username: 'mirror', password: 'mirror-pw-1', tenant_id: 'default', email: 'boss@acme.test' },
      });
      expect(sameEmail.status).toBe(201);
      // Within one tenant the name is taken, and only that tenant's admin hears so.
      expect(
        (
          await call(`${url}/v1/users`, {
            method: 'POST',
            token: acmeAdmin,
            json: { username: 'alice', password: 'x-password-1' },
          })
        ).status,
      ).toBe(409);
      // Each alice logs in to her own tenant.
      expect((await login(url, 'alice', 'acme-alice-pw', 'acme')).access_token).toBeTruthy();
      expect((await login(url, 'alice', 'alice-password-1')).access_token).toBeTruthy();
    });
  });

  it("audit events carry the request's correlation id and a fresh idempotency key", async () => {
    const res = await call(`${url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'x-correlation-id': 'corr-audit-1' },
      json: { username: 'alice', password: 'alice-password-1' },
    });
    expect(res.status).toBe(200);
    const rows = await harness.db.prisma.outboxEvent.findMany({
      where: { correlationId: 'corr-audit-1' },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => r.eventType)).toEqual(['auth_login_succeeded', 'token_issued']);
    expect(rows.every((r) => r.service === 'identity' && r.tenantId === 'default' && r.userId === 'alice')).toBe(true);
    expect(new Set(rows.map((r) => r.idempotencyKey)).size).toBe(2);
    const all = await harness.db.prisma.outboxEvent.findMany({ where: { service: 'identity' } });
    const text = JSON.stringify(all.map((r) => ({ ...r, id: String(r.id) })));
    expect(text).not.toContain('alice-password-1');
    expect(text).not.toContain(res.body.access_token);
    expect(text).not.toContain(res.body.refresh_token);
  });

  it('GET /docs/openapi.json is an OpenAPI 3 document of every route, with tags and security', async () => {
    const doc = (await call(`${url}/docs/openapi.json`)).body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info).toMatchObject({ title: 'Identity service', version: '0.1.0' });
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const expected: [string, string, boolean][] = [
      ['/docs/info', 'get', false],
      ['/v1/auth/token', 'post', false],
      ['/v1/auth/login', 'post', false],
      ['/v1/auth/refresh', 'post', false],
      ['/v1/auth/logout', 'post', false],
      ['/v1/auth/revoke', 'post', false],
      ['/v1/auth/service-token', 'post', false],
      ['/v1/auth/verify', 'get', true],
      ['/v1/me', 'get', true],
      ['/v1/tenants', 'get', true],
      ['/v1/tenants', 'post', true],
      ['/v1/roles', 'post', true],
      ['/v1/roles', 'get', true],
      ['/v1/users', 'get', true],
      ['/v1/users', 'post', true],
      ['/v1/users/{user_id}/roles', 'post', true],
      ['/v1/service-accounts', 'post', true],
    ];
    for (const [path, method, secured] of expected) {
      const op = doc.paths[path]?.[method];
      expect({ path, method, present: Boolean(op) }).toEqual({ path, method, present: true });
      expect(op.tags?.length).toBeGreaterThan(0);
      expect(op.responses['200'] ?? op.responses['201']).toBeDefined();
      if (secured) {
        expect(op.security).toEqual([{ bearerAuth: [] }]);
        expect(op.responses['401']).toBeDefined();
      }
    }
    expect(doc.paths['/v1/auth/token'].post.requestBody.content['application/x-www-form-urlencoded']).toBeDefined();
    const roleParams = doc.paths['/v1/roles'].post.parameters;
    expect(roleParams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'role_name',
          in: 'query',
          required: true,
          schema: expect.objectContaining({ maxLength: 100 }),
        }),
      ]),
    );
    // Every operation and parameter is well-formed enough for OpenAPI tooling.
    for (const [path, ops] of Object.entries<
      Record<string, { responses: object; parameters?: { in: string; name: string }[] }>
    >(doc.paths)) {
      for (const op of Object.values(ops)) {
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const p of op.parameters ?? []) expect(['query', 'path', 'header', 'cookie']).toContain(p.in);
        if (path.includes('{')) expect(op.parameters?.some((p) => p.in === 'path')).toBe(true);
      }
    }
  });
});
