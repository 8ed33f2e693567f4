// Multi-factor sign-in over real HTTP with the issue's policy (admin, reviewer and platform-admin
// must use a second factor): enrolment at the first sign-in, TOTP challenges, code reuse refused,
// recovery codes, brute force throttled and audited, step-up for sensitive actions, amr/acr in the
// tokens, the tenant's policy, and another tenant's factors and sessions out of reach.
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { TotpVerifier } from '../../../subgraphs/identity/totp';
import { call, gql, login, startIdentity, TEST_ENV, type Res } from './identity.helpers';

jest.setTimeout(120_000);

const POLICY = 'admin,reviewer,platform-admin';

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

/**
 * A token as identity would sign it, for callers the test cannot sign in as cheaply (a
 * password-only admin, an operator, another tenant's admin): the services trust the signature.
 */
function forge(who: { username: string; tenantId: string; roles: string[]; amr?: string[] }): Promise<string> {
  const scopes = who.roles.some((r) => r === 'admin' || r === 'platform-admin') ? ['admin', 'read', 'write'] : ['read'];
  return new AccessTokens(TEST_JWT_SECRET, 3600).issue({ ...who, scopes });
}

/** An authenticator app: codes for now, or for the next time step (the window accepts one step ahead). */
function app(secret: string) {
  const totp = new TotpVerifier(secret);
  return { now: () => totp.generate(Date.now()), next: () => totp.generate(Date.now() + 30_000) };
}

describe('identity: multi-factor sign-in (REST)', () => {
  let harness: Harness;
  let url: string;

  const post = (path: string, json: unknown, token?: string) => call(`${url}${path}`, { method: 'POST', json, token });
  const get = (path: string, token: string) => call(`${url}${path}`, { token });
  const del = (path: string, token: string) => call(`${url}${path}`, { method: 'DELETE', token });
  const passwordLogin = (username: string, password: string, tenant_id?: string) =>
    post('/v1/auth/login', { username, password, ...(tenant_id ? { tenant_id } : {}) });

  /** Enrols through the enrolment challenge of a first sign-in; the authenticator, codes and tokens. */
  async function enrolAtSignIn(username: string, password: string, tenant?: string) {
    const first = await passwordLogin(username, password, tenant);
    expect(first.status).toBe(401);
    expect(first.body).toMatchObject({ error: 'mfa_enrolment_required', factors: ['totp', 'webauthn'] });
    const started = await post('/v1/auth/mfa/totp/enrol', { mfa_token: first.body.mfa_token });
    expect(started.status).toBe(200);
    const authenticator = app(started.body.secret);
    const firstCode = authenticator.now();
    const done = await post('/v1/auth/mfa/totp/confirm', {
      mfa_token: first.body.mfa_token,
      factor_id: started.body.factor_id,
      code: firstCode,
    });
    expect(done.status).toBe(200);
    return {
      authenticator,
      firstCode,
      recoveryCodes: done.body.recovery_codes as string[],
      tokens: done.body,
      started,
    };
  }

  let root: Awaited<ReturnType<typeof enrolAtSignIn>>;

  beforeAll(async () => {
    ({ harness, url } = await startIdentity({ IDENTITY_MFA_REQUIRED_ROLES: POLICY, LOGIN_MAX_FAILURES: '5' }));
    root = await enrolAtSignIn(TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD);
    const role = await post('/v1/roles?role_name=reviewer&scopes=read,write', undefined, root.tokens.access_token);
    expect(role.status).toBe(200);
  });
  afterAll(() => harness.close());

  it('an admin without a factor is told to enrol: a 401 with a challenge, never a token', async () => {
    expect(root.started.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(root.started.body.otpauth_uri).toContain('issuer=');
    expect(root.recoveryCodes).toHaveLength(10);
    expect(new Set(root.recoveryCodes).size).toBe(10);
    expect(claimsOf(root.tokens.access_token)).toMatchObject({ sub: 'root', amr: ['pwd', 'otp'], acr: 'aal2' });
    // The secret is stored sealed, never in clear.
    const factor = await harness.db.prisma.mfaFactor.findFirstOrThrow({ where: { id: root.started.body.factor_id } });
    expect(factor.secret).not.toContain(root.started.body.secret);
    expect(factor.confirmedAt).not.toBeNull();
    const codes = await harness.db.prisma.mfaRecoveryCode.findMany({ where: { userId: factor.userId } });
    expect(codes).toHaveLength(10);
    expect(JSON.stringify(codes)).not.toContain(root.recoveryCodes[0]!);
  });

  it('the existing password grant keeps its shape: 401 with detail and WWW-Authenticate, plus the challenge', async () => {
    const res = await call(`${url}/v1/auth/token`, {
      method: 'POST',
      form: { username: 'root', password: TEST_ENV.DEV_ADMIN_PASSWORD, grant_type: 'password' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toEqual({
      detail: expect.stringContaining('Multi-factor authentication required'),
      error: 'mfa_required',
      mfa_token: expect.any(String),
      factors: ['totp', 'recovery_code'],
      expires_in: 300,
    });
    expect(res.body).not.toHaveProperty('access_token');
  });

  it('a TOTP code answers the challenge once; the same code (or an older one) is refused afterwards', async () => {
    // The enrolment's first code cannot sign in again (the very code: by now a new time step may
    // have begun, whose code would rightly be accepted).
    const a = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const reused = await post('/v1/auth/mfa/verify', { mfa_token: a.body.mfa_token, code: root.firstCode });
    expect(reused.status).toBe(401);
    const next = root.authenticator.next();
    const ok = await post('/v1/auth/mfa/verify', { mfa_token: a.body.mfa_token, code: next });
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.body.access_token)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'aal2' });
    // The challenge is used up, and the code too (with a fresh challenge).
    expect((await post('/v1/auth/mfa/verify', { mfa_token: a.body.mfa_token, code: next })).status).toBe(401);
    const b = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    expect((await post('/v1/auth/mfa/verify', { mfa_token: b.body.mfa_token, code: next })).status).toBe(401);
    const reasons = (
      await harness.db.prisma.outboxEvent.findMany({ where: { service: 'identity', eventType: 'auth_mfa_failed' } })
    ).map((r) => (r.eventData as { reason: string }).reason);
    expect(reasons).toEqual(expect.arrayContaining(['code_reused']));
  });

  it('a recovery code signs in once', async () => {
    const code = root.recoveryCodes[0]!;
    const a = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const ok = await post('/v1/auth/mfa/verify', { mfa_token: a.body.mfa_token, code, method: 'recovery_code' });
    expect(ok.status).toBe(200);
    const b = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const again = await post('/v1/auth/mfa/verify', { mfa_token: b.body.mfa_token, code, method: 'recovery_code' });
    expect(again.status).toBe(401);
    const factors = await get('/v1/auth/mfa/factors', ok.body.access_token);
    expect(factors.body).toMatchObject({ recovery_codes_left: 9, factors: [{ kind: 'totp', confirmed: true }] });
  });

  it('a user whose role the policy does not cover signs in with a password (amr pwd, acr aal1)', async () => {
    const res = await passwordLogin(TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({ amr: ['pwd'], acr: 'aal1' });
    const verify = await get('/v1/auth/verify', res.body.access_token);
    expect(verify.body).toMatchObject({ username: 'alice', amr: ['pwd'], acr: 'aal1' });
  });

  it('bad input to the MFA routes is a 422, never a 500', async () => {
    const cases: [string, unknown][] = [
      ['/v1/auth/mfa/verify', {}],
      ['/v1/auth/mfa/verify', { mfa_token: 'x', code: '123456', method: 'sms' }],
      ['/v1/auth/mfa/verify', { mfa_token: 'x'.repeat(600), code: '1' }],
      ['/v1/auth/mfa/totp/confirm', { code: '123456' }],
    ];
    for (const [path, body] of cases)
      expect({ path, status: (await post(path, body)).status }).toEqual({ path, status: 422 });
    // Unknown challenge tokens and nonsense codes: the same 401.
    expect((await post('/v1/auth/mfa/verify', { mfa_token: 'no-such-token', code: '123456' })).status).toBe(401);
    const a = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    expect((await post('/v1/auth/mfa/verify', { mfa_token: a.body.mfa_token, code: '\u0000abc' })).status).toBe(422);
    const odd = await post('/v1/auth/mfa/verify', { mfa_token: a.body.mfa_token, code: 'abc' });
    expect(odd.status).toBe(401);
    // Enrolment without a token or challenge is a 401.
    expect((await post('/v1/auth/mfa/totp/enrol', {})).status).toBe(401);
  });

  describe('brute force', () => {
    it('wrong codes count with the password throttle: locked (429) and every failure audited', async () => {
      const reviewer = await enrolAtSignInAs('rita', ['reviewer']);
      let locked: Res | undefined;
      for (let i = 0; i < 12 && !locked; i++) {
        const challenge = await passwordLogin('rita', 'rita-password-1');
        if (challenge.status === 429) {
          locked = challenge;
          break;
        }
        expect(challenge.body.error).toBe('mfa_required');
        const res = await post('/v1/auth/mfa/verify', { mfa_token: challenge.body.mfa_token, code: '000000' });
        if (res.status === 429) locked = res;
        else expect(res.status).toBe(401);
      }
      expect(locked?.status).toBe(429);
      expect(Number(locked!.headers.get('retry-after'))).toBeGreaterThan(0);
      // While locked even the right code does not get in.
      const failures = await harness.db.prisma.outboxEvent.findMany({
        where: { service: 'identity', eventType: 'auth_mfa_failed', userId: 'rita' },
      });
      expect(failures.length).toBeGreaterThanOrEqual(5);
      expect(failures.some((f) => (f.eventData as { locked_for_seconds?: number }).locked_for_seconds)).toBe(true);
      expect(JSON.stringify(failures.map((f) => f.eventData))).not.toContain('000000');
      expect(reviewer.recoveryCodes).toHaveLength(10);
    });

    it('a challenge takes five wrong codes, then the password is needed again', async () => {
      const carl = await enrolAtSignInAs('carl', ['reviewer']);
      const challenge = await passwordLogin('carl', 'carl-password-1');
      for (let i = 0; i < 5; i++)
        expect(
          (await post('/v1/auth/mfa/verify', { mfa_token: challenge.body.mfa_token, code: '000000' })).status,
        ).toBe(401);
      const right = await post('/v1/auth/mfa/verify', {
        mfa_token: challenge.body.mfa_token,
        code: carl.authenticator.next(),
      });
      expect(right.status).toBe(401);
    });
  });

  describe('step-up and policy', () => {
    it("changing the tenant's policy is itself a sensitive action; the new policy applies at the next sign-in", async () => {
      const strong = root.tokens.access_token as string;
      const policy = await get('/v1/mfa/policy', strong);
      expect(policy.body).toMatchObject({
        tenant_id: 'default',
        required_roles: POLICY.split(','),
        source: 'platform',
      });
      // A password-only admin token (forged here with the shared secret: identity would not issue one) is refused.
      const weak = await forge({ username: 'root', tenantId: 'default', roles: ['admin', 'user'], amr: ['pwd'] });
      const refused = await call(`${url}/v1/mfa/policy`, {
        method: 'PUT',
        json: { required_roles: ['admin'] },
        token: weak,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/^Multi-factor authentication required/);
      const set = await call(`${url}/v1/mfa/policy`, {
        method: 'PUT',
        json: { required_roles: ['admin', 'reviewer', 'user'] },
        token: strong,
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        required_roles: ['admin', 'reviewer', 'user'],
        source: 'tenant',
        updated_by: 'root',
      });
      const alice = await passwordLogin(TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      expect(alice.status).toBe(401);
      expect(alice.body.error).toBe('mfa_enrolment_required');
      const back = await call(`${url}/v1/mfa/policy`, {
        method: 'PUT',
        json: { required_roles: POLICY.split(',') },
        token: strong,
      });
      expect(back.status).toBe(200);
      expect((await passwordLogin(TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD)).status).toBe(200);
      const audit = await harness.db.prisma.outboxEvent.findMany({ where: { eventType: 'mfa_policy_updated' } });
      expect(audit).toHaveLength(2);
    });

    it("an operator's action in another tenant needs a second factor (403 mfa_required)", async () => {
      const weakOperator = await forge({
        username: 'operator',
        tenantId: 'platform',
        roles: ['platform-admin'],
        amr: ['pwd'],
      });
      const res = await get('/v1/users?tenant_id=default', weakOperator);
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/^Multi-factor authentication required/);
      const strongOperator = await forge({
        username: 'operator',
        tenantId: 'platform',
        roles: ['platform-admin'],
        amr: ['pwd', 'otp'],
      });
      expect((await get('/v1/users?tenant_id=default', strongOperator)).status).toBe(200);
    });

    it('removing a factor needs a second-factor sign-in', async () => {
      const alice = await passwordLogin(TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      const token = alice.body.access_token as string;
      // Anyone may enrol voluntarily; from then on their sign-in asks for the code.
      const started = await post('/v1/auth/mfa/totp/enrol', { label: 'phone' }, token);
      expect(started.status).toBe(200);
      const authenticator = app(started.body.secret);
      const wrong = await post(
        '/v1/auth/mfa/totp/confirm',
        { factor_id: started.body.factor_id, code: '000000' },
        token,
      );
      expect(wrong.status).toBe(422);
      const confirmed = await post(
        '/v1/auth/mfa/totp/confirm',
        { factor_id: started.body.factor_id, code: authenticator.now() },
        token,
      );
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.recovery_codes).toHaveLength(10);
      expect((await post('/v1/auth/mfa/totp/enrol', {}, token)).status).toBe(409);
      const removeWeak = await del(`/v1/auth/mfa/factors/${started.body.factor_id}`, token);
      expect(removeWeak.status).toBe(403);
      const challenge = await passwordLogin(TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      expect(challenge.body.error).toBe('mfa_required');
      const strong = await post('/v1/auth/mfa/verify', {
        mfa_token: challenge.body.mfa_token,
        code: authenticator.next(),
      });
      expect(strong.status).toBe(200);
      expect((await del(`/v1/auth/mfa/factors/${started.body.factor_id}`, strong.body.access_token)).status).toBe(204);
      expect((await passwordLogin(TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD)).status).toBe(200);
    });
  });

  describe('sessions', () => {
    it('a person lists and ends their sessions; the ended one cannot refresh', async () => {
      const one = await login(url, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      const two = await login(url, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      const list = await get('/v1/auth/sessions', two.access_token);
      expect(list.status).toBe(200);
      const current = list.body.sessions.filter((s: { current: boolean }) => s.current);
      expect(current).toEqual([expect.objectContaining({ id: claimsOf(two.access_token).sid, amr: ['pwd'] })]);
      const other = claimsOf(one.access_token).sid as string;
      expect(list.body.sessions.map((s: { id: string }) => s.id)).toContain(other);
      expect((await del(`/v1/auth/sessions/${other}`, two.access_token)).status).toBe(204);
      expect((await post('/v1/auth/refresh', { refresh_token: one.refresh_token })).status).toBe(401);
      expect((await post('/v1/auth/refresh', { refresh_token: two.refresh_token })).status).toBe(200);
      expect((await del(`/v1/auth/sessions/${other}`, two.access_token)).status).toBe(404);
      const revoked = await harness.db.prisma.outboxEvent.findMany({
        where: { eventType: 'token_revoked', userId: 'alice' },
      });
      expect(revoked.map((r) => (r.eventData as { reason: string }).reason)).toContain('session_revoked');
    });

    it('a refresh keeps the amr of the sign-in', async () => {
      const a = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
      const tokens = await post('/v1/auth/mfa/verify', {
        mfa_token: a.body.mfa_token,
        code: root.recoveryCodes[1]!,
        method: 'recovery_code',
      });
      const refreshed = await post('/v1/auth/refresh', { refresh_token: tokens.body.refresh_token });
      expect(refreshed.status).toBe(200);
      expect(claimsOf(refreshed.body.access_token)).toMatchObject({
        amr: ['pwd', 'otp'],
        acr: 'aal2',
        sid: claimsOf(tokens.body.access_token).sid,
      });
    });

    it("an admin lists and ends a user's sessions; another tenant's admin sees nothing of them (404)", async () => {
      const strong = root.tokens.access_token as string;
      const alice = await login(url, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      const aliceId = (
        await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'alice', tenantId: 'default' } })
      ).id;
      const listed = await get(`/v1/users/${aliceId}/sessions`, strong);
      expect(listed.status).toBe(200);
      expect(listed.body.sessions.length).toBeGreaterThan(0);
      expect(listed.body.sessions.every((s: { current: boolean }) => !s.current)).toBe(true);

      const acmeAdmin = await forge({
        username: 'acme-admin',
        tenantId: 'acme',
        roles: ['admin'],
        amr: ['pwd', 'otp'],
      });
      expect((await get(`/v1/users/${aliceId}/sessions`, acmeAdmin)).status).toBe(404);
      expect((await del(`/v1/users/${aliceId}/sessions`, acmeAdmin)).status).toBe(404);
      expect((await del(`/v1/users/${aliceId}/mfa`, acmeAdmin)).status).toBe(404);
      const session = claimsOf(alice.access_token).sid as string;
      expect((await del(`/v1/users/${aliceId}/sessions/${session}`, acmeAdmin)).status).toBe(404);
      // Nor can a plain user reach another's sessions.
      const userToken = alice.access_token;
      expect((await get(`/v1/users/${aliceId}/sessions`, userToken)).status).toBe(403);

      const ended = await del(`/v1/users/${aliceId}/sessions`, strong);
      expect(ended.status).toBe(200);
      expect(ended.body.revoked_count).toBeGreaterThan(0);
      expect((await post('/v1/auth/refresh', { refresh_token: alice.refresh_token })).status).toBe(401);
      const audit = await harness.db.prisma.outboxEvent.findMany({
        where: { eventType: 'token_revoked', tenantId: 'default' },
      });
      expect(audit.map((r) => (r.eventData as { reason: string }).reason)).toContain('admin_revoked');
    });

    it('a namesake in another tenant sees only their own factors and sessions', async () => {
      const operator = await forge({
        username: 'operator',
        tenantId: 'platform',
        roles: ['platform-admin'],
        amr: ['pwd', 'otp'],
      });
      expect((await post('/v1/tenants', { id: 'acme', name: 'Acme' }, operator)).status).toBe(201);
      const created = await post(
        '/v1/users',
        { username: 'alice', password: 'acme-alice-password', tenant_id: 'acme' },
        operator,
      );
      expect(created.status).toBe(201);
      const acmeAlice = await login(url, 'alice', 'acme-alice-password', 'acme');
      const sessions = await get('/v1/auth/sessions', acmeAlice.access_token);
      expect(sessions.body.sessions).toEqual([
        expect.objectContaining({ id: claimsOf(acmeAlice.access_token).sid, current: true }),
      ]);
      expect((await get('/v1/auth/mfa/factors', acmeAlice.access_token)).body).toEqual({
        factors: [],
        recovery_codes_left: 0,
      });
      // default's alice has sessions of her own, untouched by acme's alice ending all of hers.
      const defaultAlice = await login(url, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD);
      expect((await del('/v1/auth/sessions', acmeAlice.access_token)).body).toEqual({ revoked_count: 1 });
      expect((await post('/v1/auth/refresh', { refresh_token: defaultAlice.refresh_token })).status).toBe(200);
      // acme's admin cannot reach default's root's factors or sessions.
      const rootId = (
        await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'root', tenantId: 'default' } })
      ).id;
      const acmeAdmin = await forge({
        username: 'acme-admin',
        tenantId: 'acme',
        roles: ['admin'],
        amr: ['pwd', 'otp'],
      });
      expect((await del(`/v1/users/${rootId}/mfa`, acmeAdmin)).status).toBe(404);
      expect((await get(`/v1/users/${rootId}/sessions`, acmeAdmin)).status).toBe(404);
    });
  });

  /** Creates a user with roles in `default` (as root) and enrols them at their first sign-in. */
  async function enrolAtSignInAs(username: string, roles: string[]) {
    const created = await post(
      '/v1/users',
      { username, password: `${username}-password-1`, roles },
      root.tokens.access_token,
    );
    expect(created.status).toBe(201);
    return enrolAtSignIn(username, `${username}-password-1`);
  }
});

describe('identity: multi-factor sign-in (GraphQL)', () => {
  let harness: Harness;
  let url: string;
  afterAll(() => harness.close());

  it('login answers UNAUTHENTICATED with the challenge in extensions; verifyMfa completes it', async () => {
    ({ harness, url } = await startIdentity({ IDENTITY_MFA_REQUIRED_ROLES: POLICY }));
    const LOGIN = 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }';
    const first = await gql(url, LOGIN, { u: 'root', p: TEST_ENV.DEV_ADMIN_PASSWORD });
    const ext = first.body.errors?.[0]?.extensions as Record<string, unknown>;
    expect(ext).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'mfa_enrolment_required',
      factors: ['totp', 'webauthn'],
    });
    const mfaToken = ext.mfaToken as string;
    const enrol = await gql(url, 'mutation ($t: String) { enrolTotp(mfaToken: $t) { factorId secret otpauthUri } }', {
      t: mfaToken,
    });
    const { factorId, secret } = enrol.body.data.enrolTotp;
    const authenticator = app(secret);
    const confirmed = await gql(
      url,
      'mutation ($f: ID!, $c: String!, $t: String) { confirmTotp(factorId: $f, code: $c, mfaToken: $t) { recoveryCodes tokens { accessToken } } }',
      { f: factorId, c: authenticator.now(), t: mfaToken },
    );
    expect(confirmed.body.data.confirmTotp.recoveryCodes).toHaveLength(10);
    const token = confirmed.body.data.confirmTotp.tokens.accessToken;
    expect(claimsOf(token)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'aal2' });

    const second = await gql(url, LOGIN, { u: 'root', p: TEST_ENV.DEV_ADMIN_PASSWORD });
    const ext2 = second.body.errors?.[0]?.extensions as Record<string, unknown>;
    expect(ext2).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'mfa_required', factors: ['totp', 'recovery_code'] });
    const verified = await gql(
      url,
      'mutation ($t: String!, $c: String!) { verifyMfa(mfaToken: $t, code: $c) { accessToken } }',
      {
        t: ext2.mfaToken,
        c: authenticator.next(),
      },
    );
    expect(claimsOf(verified.body.data.verifyMfa.accessToken)).toMatchObject({ amr: ['pwd', 'otp'] });

    const sessions = await gql(
      url,
      '{ sessions { id current amr } mfaFactors { recoveryCodesLeft factors { kind confirmed } } }',
      {},
      verified.body.data.verifyMfa.accessToken,
    );
    expect(sessions.body.data.mfaFactors).toEqual({
      recoveryCodesLeft: 10,
      factors: [{ kind: 'totp', confirmed: true }],
    });
    expect(sessions.body.data.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);

    // Step-up refusal in GraphQL: FORBIDDEN with extensions.reason mfa_required.
    const weak = await forge({ username: 'root', tenantId: 'default', roles: ['admin', 'user'], amr: ['pwd'] });
    const refused = await gql(url, 'mutation { setMfaPolicy(requiredRoles: ["admin"]) { source } }', {}, weak);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'mfa_required' });
  });
});
