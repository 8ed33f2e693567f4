// WebAuthn over real HTTP with the issue's policy (admin, reviewer and platform-admin must use a
// second factor): a security key enrolled at the first sign-in, a passkey added when signed in,
// assertions answering the step-up challenge (amr/acr in the tokens), listing, renaming and
// removing authenticators, and the hostile cases: an assertion replayed, from another origin, with
// another RP id's hash, with a counter that went backwards, with another user's credential id,
// and from another tenant. The authenticator is test/support/soft-authenticator.ts (the real wire
// format signed with node:crypto keys); the server's checks are @simplewebauthn/server's.
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { SoftAuthenticator } from '../../support/soft-authenticator';
import { call, gql, startIdentity, TEST_ENV, type Res } from './identity.helpers';

jest.setTimeout(120_000);

const ORIGIN = 'http://localhost:8080';

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

describe('identity: WebAuthn second factor (REST and GraphQL)', () => {
  let harness: Harness;
  let url: string;
  const rootKey = new SoftAuthenticator(ORIGIN);
  let rootTokens: { access_token: string };
  let rootFactorId: string;

  const post = (path: string, json: unknown, token?: string) => call(`${url}${path}`, { method: 'POST', json, token });
  const get = (path: string, token: string) => call(`${url}${path}`, { token });
  const passwordLogin = (username: string, password: string, tenant_id?: string) =>
    post('/v1/auth/login', { username, password, ...(tenant_id ? { tenant_id } : {}) });

  /** The first half of a sign-in with a key: the password, then the request options for the challenge. */
  async function challenge(username: string, password: string, tenant?: string) {
    const first = await passwordLogin(username, password, tenant);
    expect(first.status).toBe(401);
    expect(first.body.error).toBe('mfa_required');
    const options = await post('/v1/auth/mfa/webauthn/authenticate/options', { mfa_token: first.body.mfa_token });
    expect(options.status).toBe(200);
    return { mfaToken: first.body.mfa_token as string, factors: first.body.factors as string[], options: options.body };
  }

  const answer = (mfaToken: string, credential: unknown): Promise<Res> =>
    post('/v1/auth/mfa/webauthn/authenticate/verify', { mfa_token: mfaToken, credential });

  async function failures(): Promise<string[]> {
    const rows = await harness.db.prisma.outboxEvent.findMany({
      where: { service: 'identity', eventType: 'auth_mfa_failed' },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((r) => (r.eventData as { reason: string; method: string }).reason);
  }

  beforeAll(async () => {
    ({ harness, url } = await startIdentity({
      IDENTITY_MFA_REQUIRED_ROLES: 'admin,reviewer,platform-admin',
      IDENTITY_WEBAUTHN_RP_ID: 'localhost',
      IDENTITY_WEBAUTHN_ORIGINS: ORIGIN,
      LOGIN_MAX_FAILURES: '50',
    }));
    // root (admin) must enrol at the first sign-in: a security key this time.
    const first = await passwordLogin(TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD);
    expect(first.body).toMatchObject({ error: 'mfa_enrolment_required', factors: ['totp', 'webauthn'] });
    const options = await post('/v1/auth/mfa/webauthn/register/options', { mfa_token: first.body.mfa_token });
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({ rp: { id: 'localhost' }, user: { name: 'root' }, attestation: 'none' });
    const done = await post('/v1/auth/mfa/webauthn/register/verify', {
      mfa_token: first.body.mfa_token,
      label: 'YubiKey',
      credential: rootKey.create(options.body),
    });
    expect(done.status).toBe(200);
    expect(done.body.recovery_codes).toHaveLength(10);
    rootTokens = done.body;
    rootFactorId = done.body.factor_id;
  });
  afterAll(() => harness.close());

  it('enrolment at the first sign-in gives tokens with the key in their amr, and the key is kept', async () => {
    expect(claimsOf(rootTokens.access_token)).toMatchObject({ sub: 'root', amr: ['pwd', 'hwk', 'user'], acr: 'aal2' });
    const stored = await harness.db.prisma.webauthnCredential.findFirstOrThrow({ where: { factorId: rootFactorId } });
    expect(stored.credentialId).toBe(rootKey.credentials[0]!.id);
    expect(stored.deviceType).toBe('singleDevice');
    const factors = await get('/v1/auth/mfa/factors', rootTokens.access_token);
    expect(factors.body).toMatchObject({
      factors: [{ id: rootFactorId, kind: 'webauthn', label: 'YubiKey', confirmed: true }],
      recovery_codes_left: 10,
    });
  });

  it('a key answers the step-up challenge: tokens with amr pwd+hwk+user, acr aal2; the assertion works once', async () => {
    const c = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    expect(c.factors).toEqual(['webauthn', 'recovery_code']);
    expect(c.options.allowCredentials).toEqual([expect.objectContaining({ id: rootKey.credentials[0]!.id })]);
    const assertion = rootKey.get(c.options);
    const ok = await answer(c.mfaToken, assertion);
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.body.access_token)).toMatchObject({ amr: ['pwd', 'hwk', 'user'], acr: 'aal2' });
    const verified = await get('/v1/auth/verify', ok.body.access_token);
    expect(verified.body).toMatchObject({ amr: ['pwd', 'hwk', 'user'], acr: 'aal2' });
    // Replayed: the same assertion with the same challenge token, and with a fresh sign-in's token.
    expect((await answer(c.mfaToken, assertion)).status).toBe(401);
    const again = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    expect((await answer(again.mfaToken, assertion)).status).toBe(401);
    expect(await failures()).toContain('challenge_unknown_or_used');
    // The fresh challenge still works with a fresh assertion.
    expect((await answer(again.mfaToken, rootKey.get(again.options))).status).toBe(200);
  });

  it('an assertion from another origin or for another RP id is refused and audited', async () => {
    const c = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const phished = await answer(c.mfaToken, rootKey.get(c.options, { origin: 'https://login.evil.example' }));
    expect(phished.status).toBe(401);
    const c2 = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const otherRp = await answer(c2.mfaToken, rootKey.get(c2.options, { rpId: 'evil.example' }));
    expect(otherRp.status).toBe(401);
    // A challenge refused once is used up: a correct answer to it is refused too.
    expect((await answer(c2.mfaToken, rootKey.get(c2.options))).status).toBe(401);
    expect(await failures()).toEqual(expect.arrayContaining(['bad_origin', 'bad_rp_id']));
  });

  it('a signature counter that goes backwards (a cloned key) is refused and audited', async () => {
    const c = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const high = await answer(c.mfaToken, rootKey.get(c.options, { counter: 100 }));
    expect(high.status).toBe(200);
    const c2 = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const cloned = await answer(c2.mfaToken, rootKey.get(c2.options, { counter: 7 }));
    expect(cloned.status).toBe(401);
    const c3 = await challenge('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    expect((await answer(c3.mfaToken, rootKey.get(c3.options, { counter: 100 }))).status).toBe(401);
    expect((await failures()).filter((r) => r === 'sign_count_regressed')).toHaveLength(2);
    const stored = await harness.db.prisma.webauthnCredential.findFirstOrThrow({ where: { factorId: rootFactorId } });
    expect(Number(stored.signCount)).toBe(100);
  });

  describe('a reviewer with a passkey', () => {
    const passkey = new SoftAuthenticator(ORIGIN, true);
    let reviewerToken: string;

    beforeAll(async () => {
      const strongRoot = rootTokens.access_token;
      expect((await post('/v1/roles?role_name=reviewer&scopes=read,write', undefined, strongRoot)).status).toBe(200);
      const created = await post(
        '/v1/users',
        { username: 'rita', password: 'rita-password-1', roles: ['reviewer'] },
        strongRoot,
      );
      expect(created.status).toBe(201);
      const first = await passwordLogin('rita', 'rita-password-1');
      expect(first.body.error).toBe('mfa_enrolment_required');
      const options = await post('/v1/auth/mfa/webauthn/register/options', { mfa_token: first.body.mfa_token });
      const done = await post('/v1/auth/mfa/webauthn/register/verify', {
        mfa_token: first.body.mfa_token,
        credential: passkey.create(options.body),
      });
      expect(done.status).toBe(200);
      reviewerToken = done.body.access_token;
    });

    it('a synced passkey is a software key: amr pwd+swk+user', async () => {
      expect(claimsOf(reviewerToken)).toMatchObject({ amr: ['pwd', 'swk', 'user'], acr: 'aal2' });
      const c = await challenge('rita', 'rita-password-1');
      const ok = await answer(c.mfaToken, passkey.get(c.options));
      expect(ok.status).toBe(200);
      expect(claimsOf(ok.body.access_token)).toMatchObject({ amr: ['pwd', 'swk', 'user'] });
    });

    it("another user's credential id is unknown to this user's challenge", async () => {
      const c = await challenge('rita', 'rita-password-1');
      // root's key signs rita's challenge; and rita's signature under root's credential id.
      const rootsKey = rootKey.get({ ...c.options, allowCredentials: [] });
      expect((await answer(c.mfaToken, rootsKey)).status).toBe(401);
      const c2 = await challenge('rita', 'rita-password-1');
      const mixed = passkey.get(c2.options, { credentialId: rootKey.credentials[0]!.id });
      expect((await answer(c2.mfaToken, mixed)).status).toBe(401);
      expect(await failures()).toContain('unknown_credential');
    });

    it('adds a second authenticator, renames it, and cannot remove the last one while the policy demands it', async () => {
      const key2 = new SoftAuthenticator(ORIGIN);
      // Adding a key needs a second-factor sign-in once a factor exists.
      const weak = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
        username: 'rita',
        tenantId: 'default',
        roles: ['reviewer'],
        scopes: ['read', 'write'],
        amr: ['pwd'],
      });
      expect((await post('/v1/auth/mfa/webauthn/register/options', {}, weak)).status).toBe(403);
      const options = await post('/v1/auth/mfa/webauthn/register/options', {}, reviewerToken);
      expect(options.status).toBe(200);
      expect(options.body.excludeCredentials).toEqual([expect.objectContaining({ id: passkey.credentials[0]!.id })]);
      // The same authenticator twice is refused.
      const dup = await post(
        '/v1/auth/mfa/webauthn/register/verify',
        { credential: passkey.create(options.body, { again: true }) },
        reviewerToken,
      );
      expect(dup.status).toBe(409);
      const options2 = await post('/v1/auth/mfa/webauthn/register/options', {}, reviewerToken);
      const added = await post(
        '/v1/auth/mfa/webauthn/register/verify',
        { credential: key2.create(options2.body), label: 'backup key' },
        reviewerToken,
      );
      expect(added.status).toBe(200);
      expect(added.body.recovery_codes).toBeNull();
      const renamed = await call(`${url}/v1/auth/mfa/factors/${added.body.factor_id}`, {
        method: 'PATCH',
        json: { label: 'desk key' },
        token: reviewerToken,
      });
      expect(renamed.status).toBe(204);
      const listed = await get('/v1/auth/mfa/factors', reviewerToken);
      expect(listed.body.factors.map((f: { label: string | null }) => f.label)).toEqual([null, 'desk key']);
      // Both keys answer challenges.
      const c = await challenge('rita', 'rita-password-1');
      expect(c.options.allowCredentials).toHaveLength(2);
      expect((await answer(c.mfaToken, key2.get(c.options))).status).toBe(200);
      // Remove one; the last is refused (a reviewer must keep a second factor).
      const [first, second] = listed.body.factors as { id: string }[];
      const del = (id: string) => call(`${url}/v1/auth/mfa/factors/${id}`, { method: 'DELETE', token: reviewerToken });
      expect((await del(second!.id)).status).toBe(204);
      const last = await del(first!.id);
      expect(last.status).toBe(409);
      const rita = await harness.db.prisma.user.findFirstOrThrow({ where: { username: 'rita', tenantId: 'default' } });
      expect(await harness.db.prisma.webauthnCredential.count({ where: { userId: rita.id } })).toBe(1);
    });
  });

  it('another tenant: its admin cannot rename or see the factors; a namesake there gets none of them', async () => {
    const operator = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
      username: 'operator',
      tenantId: 'platform',
      roles: ['platform-admin'],
      scopes: ['admin', 'read', 'write'],
      amr: ['pwd', 'otp'],
    });
    expect((await post('/v1/tenants', { id: 'acme', name: 'Acme' }, operator)).status).toBe(201);
    expect(
      (await post('/v1/users', { username: 'root', password: 'acme-root-password', tenant_id: 'acme' }, operator))
        .status,
    ).toBe(201);
    const acmeRoot = await passwordLogin('root', 'acme-root-password', 'acme');
    expect(acmeRoot.status).toBe(200);
    const token = acmeRoot.body.access_token as string;
    expect((await get('/v1/auth/mfa/factors', token)).body).toEqual({ factors: [], recovery_codes_left: 0 });
    const renamed = await call(`${url}/v1/auth/mfa/factors/${rootFactorId}`, {
      method: 'PATCH',
      json: { label: 'mine now' },
      token,
    });
    expect(renamed.status).toBe(404);
    // acme's root registers a key; default's root's credential id cannot answer for it.
    const options = await post('/v1/auth/mfa/webauthn/register/options', {}, token);
    const acmeKey = new SoftAuthenticator(ORIGIN);
    expect(
      (await post('/v1/auth/mfa/webauthn/register/verify', { credential: acmeKey.create(options.body) }, token)).status,
    ).toBe(200);
    const c = await challenge('root', 'acme-root-password', 'acme');
    expect(c.options.allowCredentials).toEqual([expect.objectContaining({ id: acmeKey.credentials[0]!.id })]);
    const foreign = rootKey.get({ ...c.options, allowCredentials: [] });
    expect((await answer(c.mfaToken, foreign)).status).toBe(401);
    const factor = await harness.db.prisma.mfaFactor.findFirstOrThrow({ where: { id: rootFactorId } });
    expect(factor.label).toBe('YubiKey');
  });

  it('GraphQL mirrors the doors: options and an assertion sign in; the factor list shows the key', async () => {
    const first = await passwordLogin('root', TEST_ENV.DEV_ADMIN_PASSWORD);
    const options = await gql(url, 'mutation ($t: String!) { webauthnAuthenticationOptions(mfaToken: $t) }', {
      t: first.body.mfa_token,
    });
    expect(options.body.errors).toBeUndefined();
    const opts = options.body.data.webauthnAuthenticationOptions;
    const signed = await gql(
      url,
      'mutation ($t: String!, $c: JSON!) { verifyWebauthn(mfaToken: $t, credential: $c) { accessToken } }',
      { t: first.body.mfa_token, c: rootKey.get(opts) },
    );
    expect(signed.body.errors).toBeUndefined();
    const token = signed.body.data.verifyWebauthn.accessToken as string;
    expect(claimsOf(token)).toMatchObject({ amr: ['pwd', 'hwk', 'user'] });
    const listed = await gql(url, '{ mfaFactors { factors { id kind label } } }', {}, token);
    expect(listed.body.data.mfaFactors.factors).toEqual([{ id: rootFactorId, kind: 'webauthn', label: 'YubiKey' }]);
    // A replay through GraphQL is UNAUTHENTICATED too.
    const replay = await gql(
      url,
      'mutation ($t: String!, $c: JSON!) { verifyWebauthn(mfaToken: $t, credential: $c) { accessToken } }',
      { t: first.body.mfa_token, c: rootKey.get(opts) },
    );
    expect(replay.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
