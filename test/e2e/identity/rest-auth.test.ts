// The spec's identity REST routes over real HTTP: logins, tokens, and every "Bad input" case
// of issue 2, each followed by a check that the server still serves.
import type { Harness } from '../../support/service-harness';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { call, login, startIdentity, TEST_ENV, loginOperator } from './identity.helpers';
import { badTokens, signed } from './tokens';
import { until } from '../../support/waiting';

jest.setTimeout(60_000);

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

describe('identity REST: authentication', () => {
  let harness: Harness;
  let url: string;
  let adminToken: string;
  let userToken: string;

  beforeAll(async () => {
    ({ harness, url } = await startIdentity({ BODY_LIMIT_BYTES: '4096' }));
    adminToken = (await login(url, TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD)).access_token;
    userToken = (await login(url, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD)).access_token;
  });
  afterAll(() => harness.close());

  async function stillServes(): Promise<void> {
    const res = await call(`${url}/health`);
    expect(res.status).toBe(200);
  }

  it('GET /health and /docs/info (version 0.1.0 and capabilities)', async () => {
    expect((await call(`${url}/health`)).body).toMatchObject({
      status: 'healthy',
      service: 'identity',
      version: '0.1.0',
    });
    const info = await call(`${url}/docs/info`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      name: 'identity',
      version: '0.1.0',
      token: { algorithm: 'HS256', issuer: 'platform-identity', expires_in: 86400, refresh_token_expire_days: 7 },
    });
    expect(info.body.capabilities).toEqual(
      expect.arrayContaining([
        'oauth2_password_grant',
        'refresh_token_rotation',
        'service_accounts_client_credentials',
      ]),
    );
  });

  it('POST /v1/auth/token: form password grant → bearer token, expires_in 86400, refresh token, exact claims', async () => {
    const res = await call(`${url}/v1/auth/token`, {
      method: 'POST',
      form: { username: 'root', password: 'root-password-1', grant_type: 'password' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 86400 });
    const claims = claimsOf(res.body.access_token);
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
      sub: 'root',
      tenant_id: 'default',
      roles: ['admin', 'user'],
      scopes: ['admin', 'read', 'write'],
      iss: 'platform-identity',
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(86400);
  });

  it('POST /v1/auth/token: grant_type must be password; JSON is not a form', async () => {
    const wrong = await call(`${url}/v1/auth/token`, {
      method: 'POST',
      form: { username: 'root', password: 'root-password-1', grant_type: 'client_credentials' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0]).toMatchObject({ loc: ['body', 'grant_type'], type: 'literal_error' });
    const missing = await call(`${url}/v1/auth/token`, {
      method: 'POST',
      form: { username: 'root', password: 'root-password-1' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ['body', 'grant_type'], msg: 'Field required', type: 'missing' }]);
    const json = await call(`${url}/v1/auth/token`, {
      method: 'POST',
      json: { username: 'root', password: 'root-password-1', grant_type: 'password' },
    });
    expect(json.status).toBe(422);
    await stillServes();
  });

  it('POST /v1/auth/login: JSON login, tenant defaults to default', async () => {
    const res = await call(`${url}/v1/auth/login`, {
      method: 'POST',
      json: { username: 'alice', password: 'alice-password-1' },
    });
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({
      sub: 'alice',
      tenant_id: 'default',
      roles: ['user'],
      scopes: ['read'],
    });
    const explicit = await call(`${url}/v1/auth/login`, {
      method: 'POST',
      json: { username: 'alice', password: 'alice-password-1', tenant_id: 'default' },
    });
    expect(explicit.status).toBe(200);
  });

  it('GET /v1/auth/verify and GET /v1/me', async () => {
    const v = await call(`${url}/v1/auth/verify`, { token: userToken });
    expect(v.status).toBe(200);
    expect(v.body).toEqual({
      valid: true,
      username: 'alice',
      tenant_id: 'default',
      roles: ['user'],
      scopes: ['read'],
      amr: ['pwd'],
      acr: 'aal1',
    });
    // The answer for a cached token is kept serialised: the same bytes and type on every request.
    const raw = async () => {
      const res = await fetch(`${url}/v1/auth/verify`, { headers: { authorization: `Bearer ${userToken}` } });
      return { type: res.headers.get('content-type'), text: await res.text() };
    };
    const first = await raw();
    expect(first).toEqual({ type: 'application/json; charset=utf-8', text: JSON.stringify(v.body) });
    expect(await raw()).toEqual(first);
    const me = await call(`${url}/v1/me`, { token: adminToken });
    expect(me.body).toEqual({
      username: 'root',
      tenant_id: 'default',
      roles: ['admin', 'user'],
      scopes: ['admin', 'read', 'write'],
      email: null,
    });
  });

  describe('bad input → 422 with the FastAPI body', () => {
    it('malformed JSON', async () => {
      const res = await call(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"username": "root", ',
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }] });
      await stillServes();
    });

    it('wrong content type', async () => {
      const text = await call(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'username=root',
      });
      expect(text.status).toBe(422);
      expect(text.body.detail[0]).toMatchObject({ loc: ['body'], type: 'dict_type' });
      const xml = await call(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: '<login/>',
      });
      expect(xml.status).toBe(422);
      expect(xml.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
      await stillServes();
    });

    it('missing fields', async () => {
      const res = await call(`${url}/v1/auth/login`, { method: 'POST', json: { username: 'root' } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }] });
      await stillServes();
    });

    it('fields of the wrong type', async () => {
      const res = await call(`${url}/v1/auth/login`, { method: 'POST', json: { username: 12345, password: ['x'] } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(
        expect.arrayContaining([
          { loc: ['body', 'username'], msg: 'Input should be a valid string', type: 'string_type' },
          { loc: ['body', 'password'], msg: 'Input should be a valid string', type: 'string_type' },
        ]),
      );
      await stillServes();
    });

    it('a body over the limit → 413', async () => {
      const res = await call(`${url}/v1/auth/login`, {
        method: 'POST',
        json: { username: 'root', password: 'x'.repeat(8000) },
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: expect.any(String) });
      await stillServes();
    });
  });

  describe('wrong credentials → one identical 401', () => {
    it('wrong password, unknown user, inactive user and wrong tenant cannot be told apart', async () => {
      // An inactive user and a second tenant to be wrong about.
      const created = await call(`${url}/v1/users`, {
        method: 'POST',
        token: adminToken,
        json: { username: 'dormant', password: 'dormant-password' },
      });
      expect(created.status).toBe(201);
      await harness.db.prisma.user.updateMany({ where: { username: 'dormant' }, data: { isActive: false } });
      const operator = (await loginOperator(url)).access_token;
      expect(
        (await call(`${url}/v1/tenants`, { method: 'POST', token: operator, json: { id: 'other', name: 'Other' } }))
          .status,
      ).toBe(201);

      const attempts = [
        { username: 'alice', password: 'wrong-password' },
        { username: 'nobody-here', password: 'alice-password-1' },
        { username: 'dormant', password: 'dormant-password' },
        { username: 'alice', password: 'alice-password-1', tenant_id: 'other' },
        { username: 'alice', password: 'alice-password-1', tenant_id: 'no-such-tenant' },
      ];
      const results = [];
      for (const json of attempts) {
        const res = await call(`${url}/v1/auth/login`, { method: 'POST', json });
        results.push({ status: res.status, body: res.body, www: res.headers.get('www-authenticate') });
        await stillServes();
      }
      expect(results[0]).toEqual({ status: 401, body: { detail: 'Could not validate credentials' }, www: 'Bearer' });
      for (const r of results) expect(r).toEqual(results[0]);

      const form = await call(`${url}/v1/auth/token`, {
        method: 'POST',
        form: { username: 'dormant', password: 'dormant-password', grant_type: 'password' },
      });
      expect({ status: form.status, body: form.body, www: form.headers.get('www-authenticate') }).toEqual(results[0]);
    });

    it('each failure is audited alone, without the password', async () => {
      const rows = await harness.db.prisma.outboxEvent.findMany({
        where: { service: 'identity', eventType: 'auth_login_failed' },
      });
      expect(rows.length).toBeGreaterThanOrEqual(5);
      const reasons = rows.map((r) => (r.eventData as { reason: string }).reason);
      expect(reasons).toEqual(expect.arrayContaining(['bad_credentials', 'unknown_user', 'inactive_user']));
      const text = JSON.stringify(rows.map((r) => r.eventData));
      expect(text).not.toContain('alice-password-1');
      expect(text).not.toContain('wrong-password');
    });
  });

  describe('failed logins of every kind are audited; floods are throttled', () => {
    it('a NUL or lone surrogate in the username is a 422 and still an auth_login_failed event', async () => {
      // A fresh identity: the earlier malformed requests of this file have used up the audit allowance.
      const fresh = await startIdentity();
      try {
        const at = fresh.url;
        expect(
          (
            await call(`${at}/v1/auth/token`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'grant_type=password&username=a%00b&password=x',
            })
          ).status,
        ).toBe(422);
        expect(
          (
            await call(`${at}/v1/auth/login`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"username":"\\ud800","password":"x"}',
            })
          ).status,
        ).toBe(422);
        expect(
          (
            await call(`${at}/v1/auth/service-token`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"grant_type":"client_credentials","client_id":"a\\u0000","client_secret":"x"}',
            })
          ).status,
        ).toBe(422);
        // Audited once the answer is sent.
        const count = () =>
          fresh.harness.db.prisma.outboxEvent.count({
            where: { eventType: 'auth_login_failed', userId: '(unreadable)' },
          });
        await until(async () => (await count()) === 3, 'three malformed-login events');
      } finally {
        await fresh.harness.close();
      }
    });

    it('a flood of wrong passwords against one account is throttled (429 + Retry-After) without touching other accounts', async () => {
      const created = await call(`${url}/v1/users`, {
        method: 'POST',
        token: adminToken,
        json: { username: 'target', password: 'target-password-1' },
      });
      expect(created.status).toBe(201);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        statuses.push(
          (await call(`${url}/v1/auth/login`, { method: 'POST', json: { username: 'target', password: `guess-${i}` } }))
            .status,
        );
      }
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      const locked = await call(`${url}/v1/auth/login`, {
        method: 'POST',
        json: { username: 'target', password: 'target-password-1' },
      });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(locked.body).toEqual({ detail: expect.stringMatching(/Too many failed logins/) });
      // The chain got one event per counted failure, not one per attempt.
      const events = await harness.db.prisma.outboxEvent.count({
        where: { eventType: 'auth_login_failed', userId: 'target' },
      });
      expect(events).toBeLessThan(8);
      // Other users of the tenant log in meanwhile.
      expect((await login(url, 'alice', 'alice-password-1')).access_token).toBeTruthy();
    });
  });

  describe('bad tokens → 401 with WWW-Authenticate: Bearer', () => {
    it.each(['/v1/auth/verify', '/v1/me', '/v1/tenants'])('%s', async (path) => {
      for (const [name, token] of await badTokens()) {
        const res = await call(`${url}${path}`, { token });
        expect({ name, status: res.status, www: res.headers.get('www-authenticate'), body: res.body }).toEqual({
          name,
          status: 401,
          www: 'Bearer',
          body: { detail: 'Could not validate credentials' },
        });
      }
      const none = await call(`${url}${path}`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      await stillServes();
    });

    it('a token signed with the right key still verifies (the bad ones fail for their flaw, not for the harness)', async () => {
      const res = await call(`${url}/v1/auth/verify`, { token: await signed(TEST_JWT_SECRET) });
      expect(res.status).toBe(200);
    });
  });

  it("a non-admin on admin routes → 403 with the spec's detail", async () => {
    for (const [method, path, json] of [
      ['GET', '/v1/tenants', undefined],
      ['POST', '/v1/roles?role_name=nope', undefined],
      ['POST', '/v1/users', { username: 'x-user', password: 'password-1' }],
      ['GET', '/v1/users', undefined],
      ['POST', '/v1/tenants', { id: 't', name: 'T' }],
      ['POST', '/v1/service-accounts', { name: 'robot' }],
    ] as const) {
      const res = await call(`${url}${path}`, { method, token: userToken, json });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 403,
        body: { detail: 'Admin access required' },
      });
    }
    await stillServes();
  });

  it('POST /v1/roles: creates with scopes, 409 on duplicate, 422 on a role_name over 100 characters', async () => {
    const created = await call(`${url}/v1/roles?role_name=auditor&scopes=read&scopes=audit`, {
      method: 'POST',
      token: adminToken,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'auditor', scopes: ['read', 'audit'] });
    const comma = await call(`${url}/v1/roles?role_name=editor&scopes=read,write`, {
      method: 'POST',
      token: adminToken,
    });
    expect(comma.body.scopes).toEqual(['read', 'write']);
    const body = await call(`${url}/v1/roles?role_name=reviewer`, {
      method: 'POST',
      token: adminToken,
      json: { scopes: ['read'], description: 'reviews' },
    });
    expect(body.body).toMatchObject({ name: 'reviewer', scopes: ['read'], description: 'reviews' });
    const plain = await call(`${url}/v1/roles?role_name=noscope`, { method: 'POST', token: adminToken });
    expect(plain.body).toMatchObject({ name: 'noscope', scopes: [] });

    const dup = await call(`${url}/v1/roles?role_name=auditor`, { method: 'POST', token: adminToken });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "Role 'auditor' already exists" });
    const builtIn = await call(`${url}/v1/roles?role_name=admin`, { method: 'POST', token: adminToken });
    expect(builtIn.status).toBe(409);

    const long = await call(`${url}/v1/roles?role_name=${'r'.repeat(101)}`, { method: 'POST', token: adminToken });
    expect(long.status).toBe(422);
    expect(long.body.detail[0]).toMatchObject({ loc: ['query', 'role_name'], type: 'string_too_long' });
    const exactly100 = await call(`${url}/v1/roles?role_name=${'r'.repeat(100)}`, {
      method: 'POST',
      token: adminToken,
    });
    expect(exactly100.status).toBe(200);
    const missing = await call(`${url}/v1/roles`, { method: 'POST', token: adminToken });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['query', 'role_name'], type: 'missing' });
    await stillServes();

    const events = await harness.db.prisma.outboxEvent.findMany({
      where: { eventType: 'role_created' },
      orderBy: { id: 'asc' },
    });
    expect(events.map((e) => (e.eventData as { role_name: string }).role_name).slice(0, 4)).toEqual([
      'auditor',
      'editor',
      'reviewer',
      'noscope',
    ]);
  });

  it('POST /v1/users: 409 on a duplicate username', async () => {
    const first = await call(`${url}/v1/users`, {
      method: 'POST',
      token: adminToken,
      json: { username: 'carol', password: 'carol-password' },
    });
    expect(first.status).toBe(201);
    const again = await call(`${url}/v1/users`, {
      method: 'POST',
      token: adminToken,
      json: { username: 'carol', password: 'other-password' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: "Username 'carol' already exists" });
    const extra = await call(`${url}/v1/users`, {
      method: 'POST',
      token: adminToken,
      json: { username: 'dave', password: 'dave-password', is_admin: true },
    });
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0]).toMatchObject({ loc: ['body', 'is_admin'], type: 'extra_forbidden' });
    await stillServes();
  });
});

describe('identity REST: token lifetime from ACCESS_TOKEN_EXPIRE_MINUTES', () => {
  it('expires_in = minutes * 60', async () => {
    const { harness, url } = await startIdentity({ ACCESS_TOKEN_EXPIRE_MINUTES: '15' });
    try {
      const res = await call(`${url}/v1/auth/token`, {
        method: 'POST',
        form: { username: 'root', password: 'root-password-1', grant_type: 'password' },
      });
      expect(res.body.expires_in).toBe(900);
    } finally {
      await harness.close();
    }
  });
});
